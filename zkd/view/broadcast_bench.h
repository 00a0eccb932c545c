// SPDX-License-Identifier: Apache-2.0
// What the admin server's broadcast command (broadcast_command.h) asks of a
// running server: the ZooKeeper paper's Figure 7 measurement, the atomic
// broadcast on its own. The leader (or a standalone server) makes `count`
// setData txns of `bytes` bytes itself, keeping `in_flight` of them
// proposed and not yet applied, with no client connection, request or
// reply in the way; each is logged, replicated, committed and applied as a
// client's would be. zkd::server's BroadcastGenerator implements it
// (docs/paper.md, "Figure 7").
//
// Threading: every call happens on the server's state thread; `done` is
// called there too, once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace zkd::admin {

class BroadcastBench {
 public:
  virtual ~BroadcastBench() = default;

  struct Run {
    int64_t session = 0;  // an open session the txns are made in (a client's)
    std::string path;     // an existing znode the txns set
    int64_t count = 0;    // txns, at least 1
    int32_t bytes = 0;    // each txn's data
    int32_t in_flight = 1;
  };
  struct Result {
    int64_t count = 0;       // txns applied
    int64_t elapsed_us = 0;  // from the first proposed to the last applied
    int64_t last_zxid = -1;  // the node's mzxid after the last
    std::string error;       // "" when all `count` were applied
  };
  // Makes the run's txns and calls `done` once the last is applied, or with
  // an error: this server does not lead, a run is under way, the session or
  // the node is gone, or no txn was applied for a while.
  virtual void broadcast(Run run, std::function<void(Result)> done) = 0;
};

}  // namespace zkd::admin
