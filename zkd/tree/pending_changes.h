// SPDX-License-Identifier: Apache-2.0
// The effects of txns prepared but not applied yet (Apache's
// outstandingChanges): while txns wait for fsync or a Zab quorum, prepare()
// must see the tree as it will be once they are applied. This is an overlay
// over the applied DataTree and SessionTable: a pending record per touched
// path (the node's state after the last pending txn that touched it, or
// "deleted") and per touched session ("open" / "closed").
//
// Records are added right after prepare() and retired when apply() reaches
// their zxid (Apache's FinalRequestProcessor drops the changes whose zxid is
// not above the applied one); a path's record goes only when its latest
// pending txn is applied, since the tree holds that state from then on. Not
// thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "zkd/tree/data_tree.h"
#include "zkd/tree/ids.h"
#include "zkd/tree/session_table.h"
#include "zkd/tree/txn.h"

namespace zkd::tree {

// What prepare() needs to know about a node.
struct NodeView {
  int32_t version = 0;
  int32_t aversion = 0;
  int32_t cversion = 0;  // the stored child-creation counter (§5.2)
  int32_t num_children = 0;
  int64_t ephemeral_owner = 0;  // as stored (container_kind.h)
  NodeKind kind = NodeKind::kPersistent;
  int64_t mtime = 0;        // what a TTL node's expiry counts from
  int64_t data_length = 0;  // what a setData's quota check compares with
  zk::wire::ACLs acl;       // what ACL checks see (a pending setACL's, once prepared)
};

// Nodes and data bytes a quota path (quota_paths.h) gains or loses.
struct QuotaUsage {
  int64_t count = 0;
  int64_t bytes = 0;
};

class PendingChanges {
 public:
  PendingChanges() = default;
  // An overlay above `below` (which must outlive it): sees below's pending
  // effects under its own. A multi prepares its operations in one, so each
  // sees the effects of those before it without touching `below`.
  explicit PendingChanges(const PendingChanges* below) : below_(below) {}

  // The node at `path` ("" is the root) once every pending txn is applied;
  // nullopt when it will not exist.
  std::optional<NodeView> node(std::string_view path, const DataTree& tree) const;
  // Whether the session will be open once every pending txn is applied.
  bool session_open(SessionId session, const SessionTable& sessions) const;
  // The session's ephemeral nodes once every pending txn is applied, sorted.
  std::vector<std::string> ephemerals(SessionId session, const DataTree& tree) const;

  // What the pending txns add to the usage of the quota path `root` (as
  // the tree's quota paths assign nodes to roots now): quota_check.h.
  QuotaUsage quota_pending(std::string_view root) const;

  // Records the effects of `txn`, which was just prepared against this view.
  void add(const Txn& txn, const DataTree& tree);
  // Every txn up to `zxid` has been applied to the tree: retires its records.
  void applied(int64_t zxid);
  // Forgets every pending effect.
  void clear();
  bool empty() const { return nodes_.empty() && sessions_.empty(); }

 private:
  struct NodeRecord {
    std::optional<NodeView> state;  // nullopt: pending deletion
    int64_t zxid = 0;               // of the last pending txn that touched the node
  };
  struct SessionRecord {
    bool open = false;
    int64_t zxid = 0;
  };
  struct PathHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  void set_node(std::string_view path, std::optional<NodeView> state, int64_t zxid);
  void set_session(SessionId session, bool open, int64_t zxid);
  // A delete's effect: the node goes, its parent loses a child.
  void remove_node(std::string_view path, int64_t zxid, const DataTree& tree);
  // Adds a node's usage change to its quota path's pending usage, if any.
  void add_quota_usage(std::string_view path, QuotaUsage diff, int64_t zxid, const DataTree& tree);

  const PendingChanges* below_ = nullptr;
  std::unordered_map<std::string, NodeRecord, PathHash, std::equal_to<>> nodes_;
  std::unordered_map<SessionId, SessionRecord> sessions_;
  // (zxid, key) per record written, in prepare order: what applied() retires.
  std::deque<std::pair<int64_t, std::string>> node_order_;
  std::deque<std::pair<int64_t, SessionId>> session_order_;
  // Pending usage per quota path, and each txn's share of it (to retire).
  std::unordered_map<std::string, QuotaUsage, PathHash, std::equal_to<>> quota_usage_;
  struct QuotaShare {
    int64_t zxid = 0;
    std::string root;
    QuotaUsage diff;
  };
  std::deque<QuotaShare> quota_order_;
};

}  // namespace zkd::tree
