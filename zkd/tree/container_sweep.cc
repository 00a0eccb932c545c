// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/container_sweep.h"

#include <optional>

namespace zkd::tree {

std::vector<std::string> sweep_candidates(const DataTree& tree, const PendingChanges& pending,
                                          int64_t now_ms, int64_t max_never_used_ms) {
  std::vector<std::string> out;
  for (const std::string& path : tree.kinds().containers()) {
    std::optional<NodeView> node = pending.node(path, tree);
    if (!node || node->kind != NodeKind::kContainer || node->num_children != 0) continue;
    // cversion > 0 keeps a container from going before its first child came.
    const bool used = node->cversion > 0;
    if (used || (max_never_used_ms > 0 && now_ms - node->mtime > max_never_used_ms)) {
      out.push_back(path);
    }
  }
  for (const std::string& path : tree.kinds().ttl_nodes()) {
    std::optional<NodeView> node = pending.node(path, tree);
    if (!node || node->kind != NodeKind::kTtl || node->num_children != 0) continue;
    if (now_ms - node->mtime > ttl_of_owner(node->ephemeral_owner)) out.push_back(path);
  }
  return out;
}

}  // namespace zkd::tree
