// SPDX-License-Identifier: Apache-2.0
// Which containers and TTL nodes the container manager deletes now (Apache's
// ContainerManager.getCandidates, §6.4 of docs/wire-protocol.md):
//   * a container with no children whose stored child-creation counter is
//     > 0 (it once had a child), or, when `max_never_used_ms` > 0, one that
//     never had a child and whose now - mtime > max_never_used_ms;
//   * a TTL node with no children whose now - mtime > its ttl (a setData
//     moves mtime, so it refreshes the node).
// Nodes are judged as they will be once every pending txn is applied, so a
// node already being deleted, or refreshed or given a child by a txn not yet
// applied, is no candidate. The manager deletes each with a deleteContainer
// (20) request, which checks again when it is prepared (preprocessor.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zkd/tree/data_tree.h"
#include "zkd/tree/pending_changes.h"

namespace zkd::tree {

// Paths, containers first, each group sorted. `now_ms`: the wall clock
// (txn times are the leader's wall clock).
std::vector<std::string> sweep_candidates(const DataTree& tree, const PendingChanges& pending,
                                          int64_t now_ms, int64_t max_never_used_ms);

}  // namespace zkd::tree
