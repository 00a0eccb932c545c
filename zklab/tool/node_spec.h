// SPDX-License-Identifier: Apache-2.0
// NODE arguments of the zklab commands: an id, "leader", "follower" (the
// first serving follower by id) or "random" (one of the nodes a command can
// act on, picked at random), resolved against the lab's status now.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "zklab/tool/lab_status.h"

namespace zk::lab {

// The nodes "random" picks from.
enum class RandomAmong {
  kAlive,   // running or paused
  kDown,    // not running (for start)
  kPaused,  // stopped by SIGSTOP (for resume)
};

// The id `spec` names among `status` (one entry per node, in id order);
// nothing, with a message on `err` ("zklab: no node 9 (...)", "zklab: no node
// is the leader now", or that `spec` is no NODE at all), when it names none.
std::optional<int> resolve_node(const std::vector<NodeStatus>& status, const std::string& spec,
                                RandomAmong among, std::ostream& err);

}  // namespace zk::lab
