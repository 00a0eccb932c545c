// The znodes of one replica: path -> node, Apache's Stat bookkeeping (§5 of
// ../shared/reference/zk-wire-protocol.md), the index of ephemeral nodes per
// owning session, and the sizes mntr reports (§12.3).
//
// This is the apply-side primitive (Apache's DataTree): every mutation is a
// txn's effect and is idempotent in Apache's way (a replayed create of an
// existing node fails with kNodeExists and changes nothing, ...). It knows
// nothing of requests, watches or the session table. Not thread-safe.
//
// Layout: a hash map from absolute path to Node, each node holding the names
// of its children. The root is stored under "/" and also answers to "" (Apache
// stores it under both, which is why it is counted twice in node_count()).
#pragma once

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
#include "zkd/tree/container_kind.h"
#include "zkd/tree/ids.h"
#include "zkd/tree/quota_tracker.h"

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

struct Node {
  zk::wire::Buffer data;  // null is distinct from empty (§5.4)
  zk::wire::ACLs acl;     // as given by the txn
  StoredStat stat;
  std::set<std::string, std::less<>> children;  // child names, sorted
};

// The Stat clients see (Apache's DataNode.copyStat): cversion is reported as
// 2 * stored - numChildren (32-bit wrap-around as in Java); ephemeralOwner
// is 0 for containers and TTL nodes.
zk::wire::Stat client_stat(const Node& node);

// Apache's parent of a path: everything before the last '/' ("/a" -> "", which
// names the root; "/a/b" -> "/a"; "/t//a" -> "/t/"). `path` must contain a '/'.
std::string_view apache_parent(std::string_view path);
// The path a NodeChildrenChanged event for `parent` carries: "" becomes "/".
std::string_view event_path_of_parent(std::string_view parent);

class DataTree {
 public:
  // The fresh tree (§5.1): "/", "/zookeeper", "/zookeeper/quota" and
  // "/zookeeper/config" with the Stats and ACLs Apache's DataTree() gives them.
  // `extended_types`: zoo.cfg extendedTypesEnabled, which decides how owners
  // are read (container_kind.h).
  explicit DataTree(bool extended_types = false);

  bool extended_types() const { return extended_types_; }

  // The node at `path` ("" is the root), or nullptr. The pointer is valid until
  // the next mutation of this tree.
  const Node* find(std::string_view path) const;
  bool exists(std::string_view path) const { return find(path) != nullptr; }

  // "/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config": never deleted.
  static bool is_special_path(std::string_view path);

  // Adds `path` under its (existing) parent; `ephemeral_owner` is the stored
  // owner (a session, a container or TTL encoding, or 0), which gives the
  // node its kind. `parent_cversion` is the parent's
  // stored counter after this create (-1: current + 1); the parent's cversion
  // and pzxid move only when it is larger than the current counter (Apache's
  // rule for replays over fuzzy snapshots). kNoNode without a parent,
  // kNodeExists when the node is there; nothing changes then.
  zk::wire::Error create(std::string_view path, zk::wire::Buffer data, zk::wire::ACLs acl,
                         SessionId ephemeral_owner, int32_t parent_cversion, int64_t zxid,
                         int64_t time_ms);
  // Removes a node. The parent's pzxid moves to `zxid` when larger, even if
  // the node is missing (Apache). prepare() only deletes childless nodes; a
  // node that still has children here is a replay over a fuzzy snapshot that
  // caught descendants created after this delete, and they go with it (their
  // creates come later in the log), so no node is ever left without a parent.
  zk::wire::Error remove(std::string_view path, int64_t zxid);
  // setData's effect: data, version (the new one), mzxid and mtime.
  zk::wire::Error set_data(std::string_view path, zk::wire::Buffer data, int32_t version,
                           int64_t zxid, int64_t time_ms);
  // setACL's effect: ACL and aversion (the new one); no zxid or time changes.
  zk::wire::Error set_acl(std::string_view path, zk::wire::ACLs acl, int32_t aversion);
  // Raises a node's stored cversion to `cversion` (and pzxid to `zxid`) when
  // larger: Apache's repair when a replayed create meets an existing node.
  void raise_cversion(std::string_view path, int32_t cversion, int64_t zxid);

  // Absolute paths of the ephemeral nodes `owner` holds, sorted.
  std::vector<std::string> ephemerals(SessionId owner) const;
  int64_t ephemeral_count() const { return ephemeral_count_; }
  // Paths of the containers and of the TTL nodes (the container manager's
  // candidates, container_sweep.h), sorted.
  const std::set<std::string, std::less<>>& containers() const { return containers_; }
  const std::set<std::string, std::less<>>& ttl_nodes() const { return ttl_nodes_; }

  // zk_znode_count: the root counts twice, as in Apache (fresh tree: 5).
  int64_t node_count() const { return static_cast<int64_t>(nodes_.size()) + 1; }
  // zk_approximate_data_size: sum of path length (UTF-16 units, as Java's
  // String.length) + data length over every node, maintained as Apache's
  // cached figure is (fresh tree: 44).
  int64_t approximate_data_size() const { return approximate_data_size_; }

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
  struct PathHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  Node* find_mutable(std::string_view path);
  // Erases a node and its descendants from nodes_ and the ephemeral index
  // (not from the parent's children).
  void erase_subtree(std::string_view path);
  // Adds a node just inserted at `path` to the index of its kind.
  void index(const std::string& path, const StoredStat& stat);

  bool extended_types_ = false;
  std::unordered_map<std::string, Node, PathHash, std::equal_to<>> nodes_;
  std::unordered_map<SessionId, std::set<std::string, std::less<>>> ephemerals_;
  int64_t ephemeral_count_ = 0;
  std::set<std::string, std::less<>> containers_;
  std::set<std::string, std::less<>> ttl_nodes_;
  int64_t approximate_data_size_ = 0;
  QuotaTracker quota_;
};

// Builds a tree from a snapshot's nodes, given in pre-order (the root "/"
// first, every other node after its parent). Derived state (children sets,
// ephemeral index, sizes) is rebuilt.
class DataTreeLoader {
 public:
  // `expected_nodes` is a hint for reserving; `extended_types` as DataTree's.
  explicit DataTreeLoader(size_t expected_nodes, bool extended_types = false);
  // Adds one node (its kind is derived from stat.ephemeral_owner; the
  // stat's own kind is ignored); its children come in later calls. False, changing
  // nothing, when `path` is malformed or loaded already, or its parent is not.
  bool add(std::string path, zk::wire::Buffer data, zk::wire::ACLs acl, const StoredStat& stat);
  // The tree; nullopt when a system node (is_special_path) is missing.
  std::optional<DataTree> finish() &&;

 private:
  DataTree tree_;
  Node* parent_ = nullptr;  // the last parent looked up (siblings come together)
  std::string parent_path_;
};

}  // namespace zkd::tree
