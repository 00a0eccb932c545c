// SPDX-License-Identifier: Apache-2.0
// One znode as a replica stores it (Apache's DataNode), laid out to be small.
// A block of this tree's pool (node_pool.h) holds, in order:
//   - the 48-byte Node: czxid, ctime, the interned ACL list (acl_cache.h), the
//     children set, sizes, the kind and which parts follow;
//   - the parts of the Stat that differ from a fresh leaf's, each only when
//     present (Modified: mzxid, mtime, version; Parent: pzxid, cversion;
//     Owned: ephemeralOwner, aversion). A node created and never changed,
//     as most nodes of a big tree are, stores none: its mzxid and pzxid
//     equal its czxid, its mtime its ctime, the rest are 0;
//   - the node's absolute path, then its data.
// A million nodes of 100 bytes take about 200 bytes each, index included.
// A change that needs a part the node lacks, or more room for data, moves
// the node to a new block (DataTree::replace); so a Node* lasts only until the
// next change of its tree.
//
// Nodes are made, resized and freed only by the DataTree that indexes them;
// everyone else sees `const Node&`.
#pragma once

#include <absl/container/btree_set.h>

#include <array>
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
  // The whole stored Stat, assembled from the parts this node keeps.
  StoredStat stat() const;
  NodeKind kind() const { return kind_; }
  const ChildSet& children() const;

 private:
  friend class DataTree;
  friend class DataTreeLoader;
  friend class NodeBuilder;

  // The optional parts (bits of parts_), in the order they are laid out.
  enum Part : uint8_t { kModified = 1, kParent = 2, kOwned = 4 };
  struct Modified {
    int64_t mzxid;
    int64_t mtime;
    int32_t version;
  };
  struct Parent {
    int64_t pzxid;
    int32_t cversion;
  };
  struct Owned {
    int64_t ephemeral_owner;
    int32_t aversion;
  };
  // The parts `stat` needs: those with a field that differs from a fresh
  // leaf's.
  static uint8_t parts_for(const StoredStat& stat);
  // Bytes before the path for a node with `parts`.
  static size_t header_size(uint8_t parts);

  Node(std::string_view path, DataView data, uint8_t parts, size_t capacity);
  ~Node() = default;
  // A node holding `path` and `data` with room for `parts` (a zero Stat, no
  // ACL, no children).
  static Node* make(NodePool& pool, std::string_view path, DataView data, uint8_t parts);
  // Frees a node from make() with its children set (not the children).
  static void destroy(NodePool& pool, Node* node);
  // Stores `stat` (its kind included); the node must have parts_for(stat).
  void store(const StoredStat& stat);
  // Replaces the data when it fits this node's block; false otherwise.
  bool assign_data_in_place(DataView data);
  // The children set, made on first use.
  ChildSet& mutable_children();
  // The block's bytes in use (header, path and data).
  size_t used_size() const;
  template <typename T>
  T* part(Part which);
  template <typename T>
  const T* part(Part which) const {
    return const_cast<Node*>(this)->part<T>(which);
  }
  const char* bytes() const { return reinterpret_cast<const char*>(this) + header_size(parts_); }
  char* bytes() { return reinterpret_cast<char*>(this) + header_size(parts_); }

  int64_t czxid_ = 0;
  int64_t ctime_ = 0;
  AclCache::Entry* acl_ = nullptr;  // owned reference, released by the tree
  std::unique_ptr<ChildSet> children_;
  uint32_t path_size_ = 0;
  uint32_t name_offset_ = 0;
  int32_t data_size_ = -1;  // -1: null
  uint16_t slack_ = 0;      // the block's bytes beyond used_size()
  NodeKind kind_ = NodeKind::kPersistent;
  uint8_t parts_ = 0;  // Part bits
};

// A table, not a sum: every path() and data() (each index probe, each
// comparison of children) asks it.
inline size_t Node::header_size(uint8_t parts) {
  constexpr auto kSizes = [] {
    auto aligned = [](size_t size) { return (size + 7) / 8 * 8; };
    std::array<uint8_t, 8> sizes{};
    for (uint8_t p = 0; p < sizes.size(); ++p) {
      size_t size = sizeof(Node);
      if (p & kModified) size += aligned(sizeof(Modified));
      if (p & kParent) size += aligned(sizeof(Parent));
      if (p & kOwned) size += aligned(sizeof(Owned));
      sizes[p] = static_cast<uint8_t>(size);
    }
    return sizes;
  }();
  return kSizes[parts & 7];
}

// The Stat clients see (Apache's DataNode.copyStat): cversion is reported as
// 2 * stored - numChildren (32-bit wrap-around as in Java); ephemeralOwner
// is 0 for containers and TTL nodes.
zk::wire::Stat client_stat(const Node& node);

}  // namespace zkd::tree
