#include "zkd/tree/pending_changes.h"

#include <set>
#include <variant>

namespace zkd::tree {
namespace {

// The root answers to "" and "/"; records use "/".
std::string_view key_of(std::string_view path) { return path.empty() ? "/" : path; }

NodeView view_of(const Node& node) {
  NodeView v;
  v.version = node.stat.version;
  v.aversion = node.stat.aversion;
  v.cversion = node.stat.cversion;
  v.num_children = static_cast<int32_t>(node.children.size());
  v.ephemeral_owner = node.stat.ephemeral_owner;
  v.acl = node.acl;
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
       below_ != nullptr ? below_->ephemerals(session, tree) : tree.ephemerals(session)) {
    if (!nodes_.contains(path)) out.insert(std::move(path));
  }
  for (const auto& [path, record] : nodes_) {
    if (record.state && record.state->ephemeral_owner == session) out.insert(path);
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
      std::string_view parent_path = apache_parent(t.path);
      std::optional<NodeView> parent = self.node(parent_path, tree);
      if (!parent || self.node(t.path, tree)) return;  // the apply fails and changes nothing
      int32_t cversion = t.parent_cversion == -1
                             ? static_cast<int32_t>(static_cast<uint32_t>(parent->cversion) + 1u)
                             : t.parent_cversion;
      if (cversion > parent->cversion) parent->cversion = cversion;
      ++parent->num_children;
      self.set_node(parent_path, parent, h.zxid);
      NodeView created;
      created.ephemeral_owner = t.ephemeral ? h.session_id : 0;
      created.acl = t.acl;
      self.set_node(t.path, created, h.zxid);
    }
    void operator()(const DeleteTxn& t) { self.remove_node(t.path, h.zxid, tree); }
    void operator()(const SetDataTxn& t) {
      std::optional<NodeView> node = self.node(t.path, tree);
      if (!node) return;
      node->version = t.version;
      self.set_node(t.path, node, h.zxid);
    }
    void operator()(const SetACLTxn& t) {
      std::optional<NodeView> node = self.node(t.path, tree);
      if (!node) return;
      node->aversion = t.version;
      node->acl = t.acl;
      self.set_node(t.path, node, h.zxid);
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
}

void PendingChanges::clear() {
  nodes_.clear();
  sessions_.clear();
  node_order_.clear();
  session_order_.clear();
}

void PendingChanges::set_node(std::string_view path, std::optional<NodeView> state, int64_t zxid) {
  std::string key(key_of(path));
  nodes_.insert_or_assign(key, NodeRecord{state, zxid});
  node_order_.emplace_back(zxid, std::move(key));
}

void PendingChanges::set_session(SessionId session, bool open, int64_t zxid) {
  sessions_.insert_or_assign(session, SessionRecord{open, zxid});
  session_order_.emplace_back(zxid, session);
}

void PendingChanges::remove_node(std::string_view path, int64_t zxid, const DataTree& tree) {
  if (!node(path, tree) || key_of(path) == "/") return;
  std::string_view parent_path = apache_parent(path);
  if (std::optional<NodeView> parent = node(parent_path, tree)) {
    --parent->num_children;
    set_node(parent_path, parent, zxid);
  }
  set_node(path, std::nullopt, zxid);
}

}  // namespace zkd::tree
