// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/pending_changes.h"

#include <set>
#include <utility>
#include <variant>

namespace zkd::tree {
namespace {

// The root answers to "" and "/"; records use "/".
std::string_view key_of(std::string_view path) { return path.empty() ? "/" : path; }

int64_t length_of(const zk::wire::Buffer& data) {
  return data ? static_cast<int64_t>(data->size()) : 0;
}

NodeView view_of(const Node& node) {
  NodeView v;
  v.version = node.stat().version;
  v.aversion = node.stat().aversion;
  v.cversion = node.stat().cversion;
  v.num_children = static_cast<int32_t>(node.children().size());
  v.ephemeral_owner = node.stat().ephemeral_owner;
  v.kind = node.stat().kind;
  v.mtime = node.stat().mtime;
  v.data_length = node.data_length();
  v.acl = node.acl();
  return v;
}

}  // namespace

std::optional<NodeView> PendingChanges::node(std::string_view path, const DataTree& tree) const {
  if (auto it = nodes_.find(key_of(path)); it != nodes_.end()) return it->second.state;
  if (below_ != nullptr) return below_->node(path, tree);
  const Node* node = tree.find(path);
  if (node == nullptr) return std::nullopt;
  return view_of(*node);
}

bool PendingChanges::session_open(SessionId session, const SessionTable& sessions) const {
  if (auto it = sessions_.find(session); it != sessions_.end()) return it->second.open;
  if (below_ != nullptr) return below_->session_open(session, sessions);
  return sessions.contains(session);
}

std::vector<std::string> PendingChanges::ephemerals(SessionId session, const DataTree& tree) const {
  std::set<std::string, std::less<>> out;
  for (std::string& path :
       below_ != nullptr ? below_->ephemerals(session, tree) : tree.kinds().ephemerals(session)) {
    if (!nodes_.contains(path)) out.insert(std::move(path));
  }
  for (const auto& [path, record] : nodes_) {
    if (record.state && record.state->kind == NodeKind::kEphemeral &&
        record.state->ephemeral_owner == session) {
      out.insert(path);
    }
  }
  return {out.begin(), out.end()};
}

// Mirrors what Applier::apply does to the fields NodeView holds.
void PendingChanges::add(const Txn& txn, const DataTree& tree) {
  const TxnHeader& h = txn.header;
  struct Visitor {
    PendingChanges& self;
    const DataTree& tree;
    const TxnHeader& h;
    void operator()(const CreateSessionTxn&) { self.set_session(h.session_id, true, h.zxid); }
    void operator()(const CloseSessionTxn& t) {
      for (const std::string& path : t.paths_to_delete) self.remove_node(path, h.zxid, tree);
      for (const std::string& path : self.ephemerals(h.session_id, tree)) {
        self.remove_node(path, h.zxid, tree);
      }
      self.set_session(h.session_id, false, h.zxid);
    }
    void operator()(const CreateTxn& t) {
      created(t.path, t.data, t.acl, t.parent_cversion, t.ephemeral ? h.session_id : 0);
    }
    void operator()(const CreateContainerTxn& t) {
      created(t.path, t.data, t.acl, t.parent_cversion, kContainerOwner);
    }
    void operator()(const CreateTTLTxn& t) {
      created(t.path, t.data, t.acl, t.parent_cversion, ttl_owner(t.ttl));
    }
    // A create's effect, as DataTree::create's.
    void created(const std::string& path, const zk::wire::Buffer& data, const zk::wire::ACLs& acl,
                 int32_t parent_cversion, int64_t owner) {
      std::string_view parent_path = apache_parent(path);
      std::optional<NodeView> parent = self.node(parent_path, tree);
      if (!parent || self.node(path, tree)) return;  // the apply fails and changes nothing
      int32_t cversion = parent_cversion == -1
                             ? static_cast<int32_t>(static_cast<uint32_t>(parent->cversion) + 1u)
                             : parent_cversion;
      if (cversion > parent->cversion) parent->cversion = cversion;
      ++parent->num_children;
      self.set_node(parent_path, std::move(parent), h.zxid);
      NodeView node;
      node.ephemeral_owner = owner;
      node.kind = kind_of_owner(owner, tree.extended_types());
      node.mtime = h.time_ms;
      node.data_length = length_of(data);
      node.acl = acl;
      const int64_t length = node.data_length;
      self.set_node(path, std::move(node), h.zxid);
      self.add_quota_usage(path, {1, length}, h.zxid, tree);
    }
    void operator()(const DeleteTxn& t) { self.remove_node(t.path, h.zxid, tree); }
    void operator()(const SetDataTxn& t) {
      std::optional<NodeView> node = self.node(t.path, tree);
      if (!node) return;
      node->version = t.version;
      node->mtime = h.time_ms;
      const int64_t length_diff = length_of(t.data) - node->data_length;
      node->data_length = length_of(t.data);
      self.set_node(t.path, std::move(node), h.zxid);
      self.add_quota_usage(t.path, {0, length_diff}, h.zxid, tree);
    }
    void operator()(const SetACLTxn& t) {
      std::optional<NodeView> node = self.node(t.path, tree);
      if (!node) return;
      node->aversion = t.version;
      node->acl = t.acl;
      self.set_node(t.path, std::move(node), h.zxid);
    }
    void operator()(const CheckVersionTxn&) {}
    void operator()(const ErrorTxn&) {}
    void operator()(const MultiTxn& t) {
      for (const Txn& op : t.ops) self.add(op, tree);
    }
  };
  std::visit(Visitor{*this, tree, h}, txn.body);
}

void PendingChanges::applied(int64_t zxid) {
  while (!node_order_.empty() && node_order_.front().first <= zxid) {
    auto it = nodes_.find(node_order_.front().second);
    if (it != nodes_.end() && it->second.zxid <= zxid) nodes_.erase(it);
    node_order_.pop_front();
  }
  while (!session_order_.empty() && session_order_.front().first <= zxid) {
    auto it = sessions_.find(session_order_.front().second);
    if (it != sessions_.end() && it->second.zxid <= zxid) sessions_.erase(it);
    session_order_.pop_front();
  }
  while (!quota_order_.empty() && quota_order_.front().zxid <= zxid) {
    const QuotaShare& share = quota_order_.front();
    if (auto it = quota_usage_.find(share.root); it != quota_usage_.end()) {
      it->second.count -= share.diff.count;
      it->second.bytes -= share.diff.bytes;
      if (it->second.count == 0 && it->second.bytes == 0) quota_usage_.erase(it);
    }
    quota_order_.pop_front();
  }
}

void PendingChanges::clear() {
  nodes_.clear();
  sessions_.clear();
  node_order_.clear();
  session_order_.clear();
  quota_usage_.clear();
  quota_order_.clear();
}

void PendingChanges::set_node(std::string_view path, std::optional<NodeView> state, int64_t zxid) {
  std::string key(key_of(path));
  nodes_.insert_or_assign(key, NodeRecord{std::move(state), zxid});
  node_order_.emplace_back(zxid, std::move(key));
}

void PendingChanges::set_session(SessionId session, bool open, int64_t zxid) {
  sessions_.insert_or_assign(session, SessionRecord{open, zxid});
  session_order_.emplace_back(zxid, session);
}

void PendingChanges::remove_node(std::string_view path, int64_t zxid, const DataTree& tree) {
  std::optional<NodeView> gone = node(path, tree);
  if (!gone || key_of(path) == "/") return;
  add_quota_usage(path, {-1, -gone->data_length}, zxid, tree);
  std::string_view parent_path = apache_parent(path);
  if (std::optional<NodeView> parent = node(parent_path, tree)) {
    --parent->num_children;
    set_node(parent_path, std::move(parent), zxid);
  }
  set_node(path, std::nullopt, zxid);
}

QuotaUsage PendingChanges::quota_pending(std::string_view root) const {
  QuotaUsage out = below_ != nullptr ? below_->quota_pending(root) : QuotaUsage{};
  if (auto it = quota_usage_.find(root); it != quota_usage_.end()) {
    out.count += it->second.count;
    out.bytes += it->second.bytes;
  }
  return out;
}

void PendingChanges::add_quota_usage(std::string_view path, QuotaUsage diff, int64_t zxid,
                                     const DataTree& tree) {
  std::optional<std::string> root = tree.quota_paths().root_of(path);
  if (!root || (diff.count == 0 && diff.bytes == 0)) return;
  QuotaUsage& usage = quota_usage_[*root];
  usage.count += diff.count;
  usage.bytes += diff.bytes;
  quota_order_.push_back({zxid, std::move(*root), diff});
}

}  // namespace zkd::tree
