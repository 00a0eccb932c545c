// SPDX-License-Identifier: Apache-2.0
// `zkbench paper fig7`: the ZooKeeper paper's Figure 7, the atomic broadcast
// measured alone: txns made at the leader, with no client connection,
// request or reply. Per ensemble size, a zkd ensemble runs with
// admin.broadcast.enabled; a session on the leader creates a 1 KB znode, and
// the leader's broadcast admin command (zkd/admin/broadcast_command.h) sets
// it `txns` times, `in_flight` at a time, `runs` times. The table gives the
// median rate and the servers' CPU per txn (every node summed), the plot
// fig7.svg the rate against servers.
//
// zkd only: Apache has no way to make txns at its leader short of code
// inside the server (the paper's authors instrumented theirs), so an Apache
// in the flavours is named in the output as not run.
#pragma once

#include <cstdint>
#include <vector>

#include "zkbench/paper_lab.h"

namespace zk::bench {

struct BroadcastOptions {
  std::vector<int> sizes = {3, 5, 7};
  int64_t txns = 100000;  // per run
  int in_flight = 1000;   // the paper's servers took 2,000 requests in process
  int value_bytes = 1024;
  int runs = 3;
};

PaperOutput paper_broadcast(const PaperLab& lab, const BroadcastOptions& options);

}  // namespace zk::bench
