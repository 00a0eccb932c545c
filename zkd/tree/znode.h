// SPDX-License-Identifier: Apache-2.0
// One znode as a replica stores it (Apache's DataNode), laid out to be small:
// a fixed header (the stored Stat, a reference to an interned ACL list, the
// children set) followed in the same block (node_pool.h) by the node's
// absolute path and its data. A million nodes of 100 bytes take about 250
// bytes each, index included.
//
// Nodes are made, resized and freed only by the DataTree that indexes them;
// everyone else sees `const Node&`.
#pragma once

#include <absl/container/btree_set.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"
#include "zkd/tree/acl_cache.h"
#include "zkd/tree/container_kind.h"
#include "zkd/tree/node_pool.h"

namespace zkd::tree {

// What a node stores (Apache's StatPersisted). dataLength and numChildren are
// derived; cversion is the stored child-creation counter (§5.2), which is also
// the source of sequential suffixes (§6.2).
struct StoredStat {
  int64_t czxid = 0;
  int64_t mzxid = 0;
  int64_t pzxid = 0;
  int64_t ctime = 0;
  int64_t mtime = 0;
  int32_t version = 0;
  int32_t cversion = 0;  // child creations only (deletions do not count)
  int32_t aversion = 0;
  // What ephemeral_owner encodes (container_kind.h), derived when the node is
  // made; not stored on disk.
  NodeKind kind = NodeKind::kPersistent;
  int64_t ephemeral_owner = 0;  // owning session, or a container/TTL encoding, or 0
};

class Node;

// Orders children by name; a bare name compares too (for find/upper_bound).
struct ByName {
  using is_transparent = void;
  bool operator()(const Node* a, const Node* b) const;
  bool operator()(const Node* a, std::string_view b) const;
  bool operator()(std::string_view a, const Node* b) const;
};
// A node's children, sorted by name (a B-tree of pointers: ~10 bytes each).
using ChildSet = absl::btree_set<Node*, ByName>;

// An absent Buffer is null data, distinct from empty data (§5.4).
using DataView = std::optional<std::string_view>;
inline DataView view_of(const zk::wire::Buffer& data) {
  return data ? DataView(*data) : std::nullopt;
}

class Node {
 public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  std::string_view path() const { return {bytes(), path_size_}; }
  // The last component ("" for the root).
  std::string_view name() const { return path().substr(name_offset_); }
  // The data; nullopt when null.
  DataView data() const {
    if (data_size_ < 0) return std::nullopt;
    return std::string_view(bytes() + path_size_, static_cast<size_t>(data_size_));
  }
  // A copy of the data (null stays null).
  zk::wire::Buffer data_buffer() const;
  // Bytes of data (0 when null).
  int64_t data_length() const { return data_size_ < 0 ? 0 : data_size_; }
  const zk::wire::ACLs& acl() const { return acl_->first; }
  const StoredStat& stat() const { return stat_; }
  const ChildSet& children() const;

 private:
  friend class DataTree;
  friend class DataTreeLoader;
  friend class NodeBuilder;

  Node(std::string_view path, DataView data, size_t block_size);
  ~Node() = default;
  // A node holding `path` and `data` (zero Stat, no ACL, no children).
  static Node* make(NodePool& pool, std::string_view path, DataView data);
  // Frees a node from make() with its children set (not the children).
  static void destroy(NodePool& pool, Node* node);
  // Replaces the data when it fits this node's allocation; false otherwise.
  bool assign_data_in_place(DataView data);
  // The children set, made on first use.
  ChildSet& mutable_children();
  const char* bytes() const { return reinterpret_cast<const char*>(this + 1); }
  char* bytes() { return reinterpret_cast<char*>(this + 1); }

  StoredStat stat_;
  AclCache::Entry* acl_ = nullptr;  // owned reference, released by the tree
  std::unique_ptr<ChildSet> children_;
  uint32_t path_size_ = 0;
  uint32_t name_offset_ = 0;
  int32_t data_size_ = -1;   // -1: null
  uint32_t block_size_ = 0;  // of the whole block, header included
};

// The Stat clients see (Apache's DataNode.copyStat): cversion is reported as
// 2 * stored - numChildren (32-bit wrap-around as in Java); ephemeralOwner
// is 0 for containers and TTL nodes.
zk::wire::Stat client_stat(const Node& node);

}  // namespace zkd::tree
