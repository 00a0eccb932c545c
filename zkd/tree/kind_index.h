// SPDX-License-Identifier: Apache-2.0
// The nodes of a DataTree indexed by kind: each session's ephemerals (what
// closing the session deletes), the containers and the TTL nodes (the
// container manager's candidates, container_sweep.h). DataTree keeps it on
// every create, delete and snapshot load; readers get it from
// DataTree::kinds(). Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "zkd/tree/ids.h"
#include "zkd/tree/znode.h"

namespace zkd::tree {

class KindIndex {
 public:
  using Paths = std::set<std::string, std::less<>>;

  // A node just created or loaded, by its stat's kind (persistent: none).
  void add(const Node& node);
  // A node about to be erased.
  void remove(const Node& node);

  // Absolute paths of the ephemeral nodes `owner` holds, sorted.
  std::vector<std::string> ephemerals(SessionId owner) const;
  int64_t ephemeral_count() const { return ephemeral_count_; }
  // Paths of the containers and of the TTL nodes, sorted.
  const Paths& containers() const { return containers_; }
  const Paths& ttl_nodes() const { return ttl_nodes_; }

 private:
  std::unordered_map<SessionId, Paths> ephemerals_;
  int64_t ephemeral_count_ = 0;
  Paths containers_;
  Paths ttl_nodes_;
};

}  // namespace zkd::tree
