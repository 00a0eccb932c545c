// SPDX-License-Identifier: Apache-2.0
// The znodes of one replica: path -> node, Apache's Stat bookkeeping (§5 of
// docs/wire-protocol.md), the nodes by kind (kind_index.h: ephemerals per
// owning session, containers, TTL nodes), and the sizes mntr reports (§12.3).
//
// This is the apply-side primitive (Apache's DataTree): every mutation is a
// txn's effect and is idempotent in Apache's way (a replayed create of an
// existing node fails with kNodeExists and changes nothing, ...). It knows
// nothing of requests, watches or the session table. Not thread-safe.
//
// Layout: a flat hash set of nodes keyed by their absolute path (each node one
// block of this tree's pool, znode.h), each node holding a sorted set of pointers to its
// children, and the ACL lists interned (acl_cache.h). The root is stored
// under "/" and also answers to "" (Apache stores it under both, which is why
// it is counted twice in node_count()).
#pragma once

#include <absl/container/flat_hash_set.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "zkd/tree/acl_cache.h"
#include "zkd/tree/container_kind.h"
#include "zkd/tree/digest.h"
#include "zkd/tree/ids.h"
#include "zkd/tree/kind_index.h"
#include "zkd/tree/quota_tracker.h"
#include "zkd/tree/znode.h"

namespace zkd::tree {

// Apache's parent of a path: everything before the last '/' ("/a" -> "", which
// names the root; "/a/b" -> "/a"; "/t//a" -> "/t/"). `path` must contain a '/'.
std::string_view apache_parent(std::string_view path);
// The path a NodeChildrenChanged event for `parent` carries: "" becomes "/".
std::string_view event_path_of_parent(std::string_view parent);
// "/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config": never deleted.
bool is_special_path(std::string_view path);

class DataTree;
// The newest zxid any node's stat names (czxid, mzxid or pzxid): a lower
// bound of the zxid of a state whose own zxid is not known.
int64_t newest_zxid(const DataTree& tree);

class DataTree final {  // final: operator= remakes the object in place
 public:
  // The fresh tree (§5.1): "/", "/zookeeper", "/zookeeper/quota" and
  // "/zookeeper/config" with the Stats and ACLs Apache's DataTree() gives them.
  // `extended_types`: zoo.cfg extendedTypesEnabled, which decides how owners
  // are read (container_kind.h).
  explicit DataTree(bool extended_types = false);
  ~DataTree();
  DataTree(DataTree&& other) noexcept;
  DataTree& operator=(DataTree&& other) noexcept;
  DataTree(const DataTree&) = delete;
  DataTree& operator=(const DataTree&) = delete;

  bool extended_types() const { return extended_types_; }

  // The node at `path` ("" is the root), or nullptr. The pointer is valid until
  // the next mutation of this tree.
  const Node* find(std::string_view path) const;
  bool exists(std::string_view path) const { return find(path) != nullptr; }
  // Makes room in the index for `nodes` nodes in all (a hint), so that a
  // replay creating many does not rehash a big index again and again (each
  // rehash reads every node's path: a cache miss per node).
  void reserve(size_t nodes) { nodes_.reserve(nodes); }

  // Adds `path` under its (existing) parent; `ephemeral_owner` is the stored
  // owner (a session, a container or TTL encoding, or 0), which gives the
  // node its kind. `parent_cversion` is the parent's
  // stored counter after this create (-1: current + 1); the parent's cversion
  // and pzxid move only when it is larger than the current counter (Apache's
  // rule for replays over fuzzy snapshots). kNoNode without a parent,
  // kNodeExists when the node is there; nothing changes then.
  zk::wire::Error create(std::string_view path, const zk::wire::Buffer& data,
                         const zk::wire::ACLs& acl, SessionId ephemeral_owner,
                         int32_t parent_cversion, int64_t zxid, int64_t time_ms);
  // Removes a node. The parent's pzxid moves to `zxid` when larger, even if
  // the node is missing (Apache). prepare() only deletes childless nodes; a
  // node that still has children here is a replay over a fuzzy snapshot that
  // caught descendants created after this delete, and they go with it (their
  // creates come later in the log), so no node is ever left without a parent.
  zk::wire::Error remove(std::string_view path, int64_t zxid);
  // setData's effect: data, version (the new one), mzxid and mtime.
  zk::wire::Error set_data(std::string_view path, const zk::wire::Buffer& data, int32_t version,
                           int64_t zxid, int64_t time_ms);
  // setACL's effect: ACL and aversion (the new one); no zxid or time changes.
  zk::wire::Error set_acl(std::string_view path, const zk::wire::ACLs& acl, int32_t aversion);
  // Raises a node's stored cversion to `cversion` (and pzxid to `zxid`) when
  // larger: Apache's repair when a replayed create meets an existing node.
  void raise_cversion(std::string_view path, int32_t cversion, int64_t zxid);

  // The nodes by kind: ephemerals per session, containers, TTL nodes.
  const KindIndex& kinds() const { return kinds_; }

  // zk_znode_count: the root counts twice, as in Apache (fresh tree: 5).
  int64_t node_count() const { return static_cast<int64_t>(nodes_.size()) + 1; }
  // Distinct ACL lists the nodes share.
  size_t acl_list_count() const { return acls_.size(); }
  // zk_approximate_data_size: sum of path length (UTF-16 units, as Java's
  // String.length) + data length over every node, maintained as Apache's
  // cached figure is (fresh tree: 44).
  int64_t approximate_data_size() const { return approximate_data_size_; }

  // The tree's digest (digest.h), kept current by every mutation.
  uint64_t digest() const { return digest_; }
  // The digest computed afresh from every node (what digest() must equal).
  uint64_t compute_digest() const;

  // Number of nodes whose path starts with `path` + "/" (for "/": every node
  // but the root), as getAllChildrenNumber counts them.
  int32_t descendant_count(std::string_view path) const;

  // The paths with a quota (quota_tracker.h keeps their stats nodes current
  // through create, remove, set_data and snapshot loads).
  const QuotaPaths& quota_paths() const { return quota_.paths(); }

 private:
  friend class DataTreeLoader;
  friend class QuotaTracker;  // rewrites stats nodes' data in place
  struct Empty {};
  DataTree(Empty, bool extended_types) : extended_types_(extended_types) {}
  // The index hashes and compares nodes by path; a bare path looks one up.
  struct PathHash {
    using is_transparent = void;
    size_t operator()(std::string_view path) const;
    size_t operator()(const Node* node) const { return (*this)(node->path()); }
  };
  struct PathEq {
    using is_transparent = void;
    static std::string_view key(std::string_view path) { return path; }
    static std::string_view key(const Node* node) { return node->path(); }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return key(a) == key(b);
    }
  };
  using Index = absl::flat_hash_set<Node*, PathHash, PathEq>;

  Node* find_mutable(std::string_view path);
  // Makes a node with `acl` (a reference the node now owns) and `stat`, and
  // indexes it by path; kind indexes and sizes are the caller's.
  Node* insert(std::string_view path, DataView data, AclCache::Entry* acl, const StoredStat& stat);
  // Gives a node `data` and `stat`, moving it to a new block when they do not
  // fit its own (znode.h; the index and the parent's children then point at
  // the new one, which is returned). Leaves the digest to the caller (the
  // quota tracker's stats nodes, under /zookeeper, do not count in it).
  Node* replace(Node* node, DataView data, const StoredStat& stat);
  Node* replace_data(Node* node, DataView data) { return replace(node, data, node->stat()); }
  Node* restat(Node* node, const StoredStat& stat) { return replace(node, node->data(), stat); }
  // Raises the node's stored cversion to `cversion` (-1: one more) and its
  // pzxid to `zxid` when that is larger than the current counter, the digest
  // kept; returns the node, moved when it needed room.
  Node* raise_counter(Node* node, int32_t cversion, int64_t zxid);
  // Take a node's share out of the digest before changing it; put it back
  // after.
  void forget(const Node& node) { digest_ -= node_digest(node); }
  void remember(const Node& node) { digest_ += node_digest(node); }
  // Erases a node and its descendants from the index, the kind indexes and
  // the sizes (not from the parent's children) and frees them.
  void erase_subtree(Node* node);
  void free_all();

  bool extended_types_ = false;
  NodePool pool_;  // the nodes' memory; outlives nodes_
  Index nodes_;
  AclCache acls_;
  KindIndex kinds_;
  int64_t approximate_data_size_ = 0;
  uint64_t digest_ = 0;
  QuotaTracker quota_;
};

// The half of loading a snapshot that needs no tree (DataTreeLoader::
// builder()): makes nodes in a pool of its own and tallies their digest and
// sizes. Used by one thread at a time, which may be another than the one
// using the rest of its loader; a node it makes reaches that thread through a
// handoff that orders the two (handoff.h).
class NodeBuilder {
 public:
  // A node holding `path`, `data` and `stat` (its kind derived from
  // stat.ephemeral_owner; the stat's own kind is ignored), with no ACL,
  // in no tree yet.
  Node* make(std::string_view path, DataView data, const StoredStat& stat);

 private:
  friend class DataTreeLoader;
  explicit NodeBuilder(bool extended_types) : extended_types_(extended_types) {}
  // Frees a node from make() and takes it out of the tallies.
  void destroy(Node* node);

  const bool extended_types_;
  NodePool pool_;                      // every node made; the tree's pool once loaded
  uint64_t digest_ = 0;                // node_digest summed over the nodes made
  int64_t approximate_data_size_ = 0;  // their sizes summed, as DataTree's
};

// Builds a tree from a snapshot's nodes, given in pre-order (the root "/"
// first, every other node after its parent). Derived state (children sets,
// ephemeral index, sizes) is rebuilt. Nodes are made by builder(), possibly
// on another thread, then added here in order.
class DataTreeLoader {
 public:
  // `expected_nodes` is a hint for reserving; `extended_types` as DataTree's.
  explicit DataTreeLoader(size_t expected_nodes, bool extended_types = false);
  ~DataTreeLoader();
  DataTreeLoader(const DataTreeLoader&) = delete;
  DataTreeLoader& operator=(const DataTreeLoader&) = delete;

  // Makes room for `expected_nodes` (a hint) and the creates replayed after.
  void reserve(size_t expected_nodes);
  NodeBuilder& builder() { return builder_; }
  // Adds a node from builder() with `acl`; its children come in later calls,
  // in name order. False, changing nothing, when its path is malformed or
  // loaded already, or its parent is not: the node is then the caller's, to
  // discard().
  bool add(Node* node, const zk::wire::ACLs& acl);
  // builder().make() and add() in one; a refused node is discarded.
  bool add(std::string_view path, DataView data, const zk::wire::ACLs& acl, const StoredStat& stat);
  // Frees a node from builder() that add() refused or was never given. Only
  // once the builder is used no more (its pool is this thread's then).
  void discard(Node* node) { builder_.destroy(node); }
  // The tree; nullopt when a system node (is_special_path) is missing. Only
  // once the builder is used no more; every node it made must have been
  // added or discarded.
  std::optional<DataTree> finish() &&;

 private:
  // In a big tree the index probe misses the cache for almost every node, so
  // a node's index slots are prefetched when it is added and it is indexed
  // with the next few (kIndexBatch at once), once those loads have arrived.
  static constexpr size_t kIndexBatch = 32;
  // Indexes the nodes added since the last call.
  void index_pending();
  // Gives the builder's pool and tallies to the tree (the builder is done).
  void take_builder();

  DataTree tree_;
  NodeBuilder builder_;
  Node* parent_ = nullptr;               // the last parent looked up (siblings come together)
  AclCache::Entry* last_acl_ = nullptr;  // the last list interned (runs share one)
  std::vector<Node*> pending_;           // added and linked, not yet in the index
};

}  // namespace zkd::tree
