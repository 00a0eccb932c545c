#include "zkd/tree/data_tree.h"

#include <utility>

namespace zkd::tree {
namespace {

using zk::wire::Error;

// Java's String.length() of a UTF-8 path: one unit per code point, two for
// code points beyond U+FFFF (4-byte sequences).
int64_t utf16_length(std::string_view s) {
  int64_t n = 0;
  for (char c : s) {
    auto b = static_cast<uint8_t>(c);
    if ((b & 0xc0) != 0x80) ++n;
    if (b >= 0xf0) ++n;
  }
  return n;
}

int64_t data_length(const zk::wire::Buffer& data) {
  return data ? static_cast<int64_t>(data->size()) : 0;
}

int64_t node_size(std::string_view path, const zk::wire::Buffer& data) {
  return utf16_length(path) + data_length(data);
}

std::string_view child_name(std::string_view path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

zk::wire::Stat client_stat(const Node& node) {
  const StoredStat& s = node.stat;
  auto children = static_cast<uint32_t>(node.children.size());
  zk::wire::Stat out;
  out.czxid = s.czxid;
  out.mzxid = s.mzxid;
  out.ctime = s.ctime;
  out.mtime = s.mtime;
  out.version = s.version;
  out.cversion = static_cast<int32_t>(static_cast<uint32_t>(s.cversion) * 2u - children);
  out.aversion = s.aversion;
  // Apache's DataNode.getClientEphemeralOwner: only a session's shows.
  out.ephemeral_owner = s.kind == NodeKind::kEphemeral ? s.ephemeral_owner : 0;
  out.data_length = static_cast<int32_t>(data_length(node.data));
  out.num_children = static_cast<int32_t>(children);
  out.pzxid = s.pzxid;
  return out;
}

std::string_view apache_parent(std::string_view path) { return path.substr(0, path.rfind('/')); }

std::string_view event_path_of_parent(std::string_view parent) {
  return parent.empty() ? std::string_view("/") : parent;
}

DataTree::DataTree(bool extended_types) : extended_types_(extended_types) {
  // Apache builds these nodes with new StatPersisted() (all zero) and empty
  // data, links the children without counting creations (so the reported
  // cversion is -numChildren), and gives /zookeeper/config READ-only ACL via
  // setACL(path, READ_ACL_UNSAFE, -1), which stores aversion -1.
  auto system_node = [](std::set<std::string, std::less<>> children, zk::wire::ACLs acl) {
    Node n;
    n.data = std::string();
    n.acl = std::move(acl);
    n.children = std::move(children);
    return n;
  };
  nodes_.emplace("/", system_node({"zookeeper"}, zk::wire::open_acl_unsafe()));
  nodes_.emplace("/zookeeper", system_node({"config", "quota"}, zk::wire::open_acl_unsafe()));
  nodes_.emplace("/zookeeper/quota", system_node({}, zk::wire::open_acl_unsafe()));
  Node config = system_node({}, zk::wire::read_acl_unsafe());
  config.stat.aversion = -1;
  nodes_.emplace("/zookeeper/config", std::move(config));

  approximate_data_size_ = node_size("", nodes_.at("/").data);  // the root's "" alias
  for (const auto& [path, node] : nodes_) approximate_data_size_ += node_size(path, node.data);
}

const Node* DataTree::find(std::string_view path) const {
  if (path.empty()) path = "/";
  auto it = nodes_.find(path);
  return it == nodes_.end() ? nullptr : &it->second;
}

Node* DataTree::find_mutable(std::string_view path) {
  return const_cast<Node*>(std::as_const(*this).find(path));
}

bool DataTree::is_special_path(std::string_view path) {
  return path == "/" || path == "/zookeeper" || path == "/zookeeper/quota" ||
         path == "/zookeeper/config";
}

Error DataTree::create(std::string_view path, zk::wire::Buffer data, zk::wire::ACLs acl,
                       SessionId ephemeral_owner, int32_t parent_cversion, int64_t zxid,
                       int64_t time_ms) {
  if (path.find('/') == std::string_view::npos) return Error::kNoNode;
  Node* parent = find_mutable(apache_parent(path));
  if (parent == nullptr) return Error::kNoNode;
  std::string_view name = child_name(path);
  if (parent->children.contains(name) || nodes_.contains(path)) return Error::kNodeExists;

  if (parent_cversion == -1) parent_cversion = parent->stat.cversion + 1;
  if (parent_cversion > parent->stat.cversion) {
    parent->stat.cversion = parent_cversion;
    parent->stat.pzxid = zxid;
  }
  parent->children.emplace(name);

  Node node;
  node.data = std::move(data);
  node.acl = std::move(acl);
  node.stat.czxid = node.stat.mzxid = node.stat.pzxid = zxid;
  node.stat.ctime = node.stat.mtime = time_ms;
  node.stat.ephemeral_owner = ephemeral_owner;
  node.stat.kind = kind_of_owner(ephemeral_owner, extended_types_);
  approximate_data_size_ += node_size(path, node.data);
  const int64_t length = data_length(node.data);
  auto [it, inserted] = nodes_.emplace(std::string(path), std::move(node));
  index(it->first, it->second.stat);
  quota_.created(*this, it->first, length);
  return Error::kOk;
}

void DataTree::index(const std::string& path, const StoredStat& stat) {
  switch (stat.kind) {
    case NodeKind::kEphemeral:
      if (ephemerals_[stat.ephemeral_owner].emplace(path).second) ++ephemeral_count_;
      break;
    case NodeKind::kContainer:
      containers_.emplace(path);
      break;
    case NodeKind::kTtl:
      ttl_nodes_.emplace(path);
      break;
    case NodeKind::kPersistent:
      break;
  }
}

Error DataTree::remove(std::string_view path, int64_t zxid) {
  if (path.find('/') == std::string_view::npos) return Error::kNoNode;
  Node* parent = find_mutable(apache_parent(path));
  if (parent == nullptr) return Error::kNoNode;
  if (auto child = parent->children.find(child_name(path)); child != parent->children.end()) {
    parent->children.erase(child);
  }
  if (zxid > parent->stat.pzxid) parent->stat.pzxid = zxid;

  if (path == "/" || !nodes_.contains(path)) return Error::kNoNode;
  QuotaTracker::Removal removal = quota_.removing(*this, path);
  erase_subtree(path);
  quota_.removed(*this, removal);
  return Error::kOk;
}

void DataTree::erase_subtree(std::string_view path) {
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return;
  for (const std::string& child : it->second.children) {
    erase_subtree(std::string(path) + "/" + child);
  }
  approximate_data_size_ -= node_size(path, it->second.data);
  const NodeKind kind = it->second.stat.kind;
  if (kind == NodeKind::kContainer) containers_.erase(it->first);
  if (kind == NodeKind::kTtl) ttl_nodes_.erase(it->first);
  if (SessionId owner = it->second.stat.ephemeral_owner; kind == NodeKind::kEphemeral) {
    auto owned = ephemerals_.find(owner);
    if (owned != ephemerals_.end()) {
      if (auto entry = owned->second.find(path); entry != owned->second.end()) {
        owned->second.erase(entry);
        --ephemeral_count_;
      }
      if (owned->second.empty()) ephemerals_.erase(owned);
    }
  }
  nodes_.erase(it);
}

Error DataTree::set_data(std::string_view path, zk::wire::Buffer data, int32_t version,
                         int64_t zxid, int64_t time_ms) {
  Node* node = find_mutable(path);
  if (node == nullptr) return Error::kNoNode;
  const int64_t length_diff = data_length(data) - data_length(node->data);
  approximate_data_size_ += length_diff;
  node->data = std::move(data);
  node->stat.version = version;
  node->stat.mzxid = zxid;
  node->stat.mtime = time_ms;
  quota_.data_changed(*this, path, length_diff);
  return Error::kOk;
}

Error DataTree::set_acl(std::string_view path, zk::wire::ACLs acl, int32_t aversion) {
  Node* node = find_mutable(path);
  if (node == nullptr) return Error::kNoNode;
  node->acl = std::move(acl);
  node->stat.aversion = aversion;
  return Error::kOk;
}

void DataTree::raise_cversion(std::string_view path, int32_t cversion, int64_t zxid) {
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  Node* node = find_mutable(path);
  if (node == nullptr) return;
  if (cversion == -1) cversion = node->stat.cversion + 1;
  if (cversion > node->stat.cversion) {
    node->stat.cversion = cversion;
    node->stat.pzxid = zxid;
  }
}

std::vector<std::string> DataTree::ephemerals(SessionId owner) const {
  auto it = ephemerals_.find(owner);
  if (it == ephemerals_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

int32_t DataTree::descendant_count(std::string_view path) const {
  if (path == "/") return static_cast<int32_t>(nodes_.size()) - 1;
  std::string prefix = std::string(path) + "/";
  int32_t n = 0;
  for (const auto& entry : nodes_) {
    if (entry.first.starts_with(prefix)) ++n;
  }
  return n;
}

DataTreeLoader::DataTreeLoader(size_t expected_nodes, bool extended_types)
    : tree_(DataTree::Empty{}, extended_types) {
  tree_.nodes_.reserve(expected_nodes);
}

bool DataTreeLoader::add(std::string path, zk::wire::Buffer data, zk::wire::ACLs acl,
                         const StoredStat& stat) {
  Node* parent = nullptr;
  if (path != "/") {
    size_t slash = path.rfind('/');
    if (slash == std::string::npos || slash + 1 == path.size()) return false;
    std::string_view parent_path = slash == 0 ? std::string_view("/") : apache_parent(path);
    if (parent_ == nullptr || parent_path != parent_path_) {
      parent_ = tree_.find_mutable(parent_path);
      parent_path_ = parent_ == nullptr ? std::string() : std::string(parent_path);
      if (parent_ == nullptr) return false;
    }
    parent = parent_;
  } else if (!tree_.nodes_.empty()) {
    return false;
  }
  auto [it, inserted] = tree_.nodes_.try_emplace(std::move(path));  // `path` stays if not
  if (!inserted) return false;
  tree_.approximate_data_size_ += node_size(it->first, data);
  Node& node = it->second;
  node.data = std::move(data);
  node.acl = std::move(acl);
  node.stat = stat;
  node.stat.kind = kind_of_owner(stat.ephemeral_owner, tree_.extended_types_);
  if (parent != nullptr) {
    parent->children.emplace_hint(parent->children.end(),
                                  it->first.substr(it->first.rfind('/') + 1));
  }
  tree_.index(it->first, node.stat);
  return true;
}

std::optional<DataTree> DataTreeLoader::finish() && {
  for (std::string_view path : {"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"}) {
    if (!tree_.exists(path)) return std::nullopt;
  }
  parent_ = nullptr;
  tree_.quota_.rebuild(tree_);
  return std::move(tree_);
}

}  // namespace zkd::tree
