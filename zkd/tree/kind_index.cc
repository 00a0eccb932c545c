// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/kind_index.h"

namespace zkd::tree {

void KindIndex::add(const Node& node) {
  const StoredStat& stat = node.stat();
  switch (stat.kind) {
    case NodeKind::kEphemeral:
      if (ephemerals_[stat.ephemeral_owner].emplace(node.path()).second) ++ephemeral_count_;
      break;
    case NodeKind::kContainer:
      containers_.emplace(node.path());
      break;
    case NodeKind::kTtl:
      ttl_nodes_.emplace(node.path());
      break;
    case NodeKind::kPersistent:
      break;
  }
}

void KindIndex::remove(const Node& node) {
  const StoredStat& stat = node.stat();
  auto unindex = [path = node.path()](Paths& paths) {
    if (auto it = paths.find(path); it != paths.end()) paths.erase(it);
  };
  if (stat.kind == NodeKind::kContainer) unindex(containers_);
  if (stat.kind == NodeKind::kTtl) unindex(ttl_nodes_);
  if (stat.kind == NodeKind::kEphemeral) {
    auto owned = ephemerals_.find(stat.ephemeral_owner);
    if (owned != ephemerals_.end()) {
      if (auto entry = owned->second.find(node.path()); entry != owned->second.end()) {
        owned->second.erase(entry);
        --ephemeral_count_;
      }
      if (owned->second.empty()) ephemerals_.erase(owned);
    }
  }
}

std::vector<std::string> KindIndex::ephemerals(SessionId owner) const {
  auto it = ephemerals_.find(owner);
  if (it == ephemerals_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

}  // namespace zkd::tree
