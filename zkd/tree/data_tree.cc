// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/data_tree.h"

#include <absl/hash/hash.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

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

int64_t data_length(DataView data) { return data ? static_cast<int64_t>(data->size()) : 0; }

int64_t node_size(std::string_view path, DataView data) {
  return utf16_length(path) + data_length(data);
}
int64_t node_size(const Node& node) { return utf16_length(node.path()) + node.data_length(); }

std::string_view child_name(std::string_view path) { return path.substr(path.rfind('/') + 1); }

// The parent a node is linked under; the root has none.
std::string_view parent_path(const Node& node) {
  std::string_view path = node.path();
  if (path == "/") return {};
  return path.rfind('/') == 0 ? std::string_view("/") : apache_parent(path);
}

}  // namespace

std::string_view apache_parent(std::string_view path) { return path.substr(0, path.rfind('/')); }

std::string_view event_path_of_parent(std::string_view parent) {
  return parent.empty() ? std::string_view("/") : parent;
}

DataTree::DataTree(bool extended_types) : extended_types_(extended_types) {
  // Apache builds these nodes with new StatPersisted() (all zero) and empty
  // data, links the children without counting creations (so the reported
  // cversion is -numChildren), and gives /zookeeper/config READ-only ACL via
  // setACL(path, READ_ACL_UNSAFE, -1), which stores aversion -1.
  auto system_node = [this](std::string_view path, const zk::wire::ACLs& acl) {
    Node* node = insert(path, std::string_view(), acls_.acquire(acl), StoredStat{});
    approximate_data_size_ += node_size(*node);
    if (Node* parent = path == "/" ? nullptr : find_mutable(parent_path(*node))) {
      parent->mutable_children().insert(node);
    }
    return node;
  };
  system_node("/", zk::wire::open_acl_unsafe());
  system_node("/zookeeper", zk::wire::open_acl_unsafe());
  system_node("/zookeeper/quota", zk::wire::open_acl_unsafe());
  Node* config = system_node("/zookeeper/config", zk::wire::read_acl_unsafe());
  StoredStat config_stat = config->stat();
  config_stat.aversion = -1;
  restat(config, config_stat);
  approximate_data_size_ += node_size("", std::string_view());  // the root's "" alias
  digest_ = compute_digest();
}

DataTree::~DataTree() { free_all(); }

DataTree::DataTree(DataTree&& other) noexcept
    : extended_types_(other.extended_types_),
      pool_(std::move(other.pool_)),
      nodes_(std::exchange(other.nodes_, {})),
      acls_(std::move(other.acls_)),
      kinds_(std::move(other.kinds_)),
      approximate_data_size_(other.approximate_data_size_),
      digest_(other.digest_),
      quota_(std::move(other.quota_)) {}

// The nodes must be freed while their pool is still this tree's, so the
// members are not assigned one by one: this tree ends and is made again from
// `other` by the constructor above, the one list of what a move takes.
DataTree& DataTree::operator=(DataTree&& other) noexcept {
  if (this == &other) return *this;
  std::destroy_at(this);
  std::construct_at(this, std::move(other));
  return *this;
}

void DataTree::free_all() {
  for (Node* node : nodes_) Node::destroy(pool_, node);  // the ACL table goes as a whole
  nodes_.clear();
}

size_t DataTree::PathHash::operator()(std::string_view path) const {
  return absl::Hash<std::string_view>{}(path);
}

Node* DataTree::insert(std::string_view path, DataView data, AclCache::Entry* acl,
                       const StoredStat& stat) {
  Node* node = Node::make(pool_, path, data, Node::parts_for(stat));
  node->store(stat);
  node->acl_ = acl;
  nodes_.insert(node);
  return node;
}

Node* DataTree::replace(Node* node, DataView data, const StoredStat& stat) {
  const auto parts = static_cast<uint8_t>(node->parts_ | Node::parts_for(stat));
  if (parts == node->parts_ && node->assign_data_in_place(data)) {
    node->store(stat);
    return node;
  }
  // `data` may be the node's own: copied before the node goes.
  Node* moved = Node::make(pool_, node->path(), data, parts);
  moved->store(stat);
  moved->acl_ = node->acl_;
  moved->children_ = std::move(node->children_);
  nodes_.erase(node->path());
  nodes_.insert(moved);
  if (Node* parent = node->path() == "/" ? nullptr : find_mutable(parent_path(*node))) {
    ChildSet& siblings = parent->mutable_children();
    siblings.erase(node->name());
    siblings.insert(moved);
  }
  Node::destroy(pool_, node);
  return moved;
}

const Node* DataTree::find(std::string_view path) const {
  if (path.empty()) path = "/";
  auto it = nodes_.find(path);
  return it == nodes_.end() ? nullptr : *it;
}

Node* DataTree::find_mutable(std::string_view path) {
  return const_cast<Node*>(std::as_const(*this).find(path));
}

bool is_special_path(std::string_view path) {
  return path == "/" || path == "/zookeeper" || path == "/zookeeper/quota" ||
         path == "/zookeeper/config";
}

Error DataTree::create(std::string_view path, const zk::wire::Buffer& data,
                       const zk::wire::ACLs& acl, SessionId ephemeral_owner,
                       int32_t parent_cversion, int64_t zxid, int64_t time_ms) {
  if (path.find('/') == std::string_view::npos) return Error::kNoNode;
  Node* parent = find_mutable(apache_parent(path));
  if (parent == nullptr) return Error::kNoNode;
  // The index holds a node exactly when its parent's children do: one probe.
  if (nodes_.contains(path)) return Error::kNodeExists;

  parent = raise_counter(parent, parent_cversion, zxid);
  StoredStat stat;
  stat.czxid = stat.mzxid = stat.pzxid = zxid;
  stat.ctime = stat.mtime = time_ms;
  stat.ephemeral_owner = ephemeral_owner;
  stat.kind = kind_of_owner(ephemeral_owner, extended_types_);
  Node* node = insert(path, view_of(data), acls_.acquire(acl), stat);
  parent->mutable_children().insert(node);
  remember(*node);
  approximate_data_size_ += node_size(*node);
  kinds_.add(*node);
  quota_.created(*this, path, node->data_length());
  return Error::kOk;
}

Error DataTree::remove(std::string_view path, int64_t zxid) {
  if (path.find('/') == std::string_view::npos) return Error::kNoNode;
  Node* parent = find_mutable(apache_parent(path));
  if (parent == nullptr) return Error::kNoNode;
  if (parent->children_) {
    parent->children_->erase(child_name(path));
    if (parent->children_->empty()) parent->children_.reset();
  }
  if (StoredStat parent_stat = parent->stat(); zxid > parent_stat.pzxid) {
    parent_stat.pzxid = zxid;
    forget(*parent);
    parent = restat(parent, parent_stat);
    remember(*parent);
  }

  Node* node = path == "/" ? nullptr : find_mutable(path);
  if (node == nullptr) return Error::kNoNode;
  QuotaTracker::Removal removal = quota_.removing(*this, path);
  erase_subtree(node);
  quota_.removed(*this, removal);
  return Error::kOk;
}

void DataTree::erase_subtree(Node* node) {
  if (node->children_) {
    for (Node* child : *node->children_) erase_subtree(child);
  }
  approximate_data_size_ -= node_size(*node);
  forget(*node);
  kinds_.remove(*node);
  nodes_.erase(node->path());
  acls_.release(node->acl_);
  Node::destroy(pool_, node);
}

Error DataTree::set_data(std::string_view path, const zk::wire::Buffer& data, int32_t version,
                         int64_t zxid, int64_t time_ms) {
  Node* node = find_mutable(path);
  if (node == nullptr) return Error::kNoNode;
  const int64_t length_diff = data_length(view_of(data)) - node->data_length();
  approximate_data_size_ += length_diff;
  StoredStat stat = node->stat();
  stat.version = version;
  stat.mzxid = zxid;
  stat.mtime = time_ms;
  forget(*node);
  node = replace(node, view_of(data), stat);
  remember(*node);
  quota_.data_changed(*this, path, length_diff);
  return Error::kOk;
}

Error DataTree::set_acl(std::string_view path, const zk::wire::ACLs& acl, int32_t aversion) {
  Node* node = find_mutable(path);
  if (node == nullptr) return Error::kNoNode;
  AclCache::Entry* old = node->acl_;
  node->acl_ = acls_.acquire(acl);
  acls_.release(old);
  StoredStat stat = node->stat();
  stat.aversion = aversion;
  forget(*node);
  node = restat(node, stat);
  remember(*node);
  return Error::kOk;
}

void DataTree::raise_cversion(std::string_view path, int32_t cversion, int64_t zxid) {
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (Node* node = find_mutable(path)) raise_counter(node, cversion, zxid);
}

Node* DataTree::raise_counter(Node* node, int32_t cversion, int64_t zxid) {
  StoredStat stat = node->stat();
  if (cversion == -1) cversion = stat.cversion + 1;
  if (cversion <= stat.cversion) return node;
  stat.cversion = cversion;
  stat.pzxid = zxid;
  forget(*node);
  node = restat(node, stat);
  remember(*node);
  return node;
}

uint64_t DataTree::compute_digest() const {
  uint64_t sum = 0;
  for (const Node* node : nodes_) sum += node_digest(*node);
  return sum;
}

int32_t DataTree::descendant_count(std::string_view path) const {
  if (path == "/") return static_cast<int32_t>(nodes_.size()) - 1;
  std::string prefix = std::string(path) + "/";
  int32_t n = 0;
  for (const Node* node : nodes_) {
    if (node->path().starts_with(prefix)) ++n;
  }
  return n;
}

Node* NodeBuilder::make(std::string_view path, DataView data, const StoredStat& stat) {
  StoredStat own = stat;
  own.kind = kind_of_owner(stat.ephemeral_owner, extended_types_);
  Node* node = Node::make(pool_, path, data, Node::parts_for(own));
  node->store(own);
  // While the node is in this core's cache.
  digest_ += node_digest(*node);
  approximate_data_size_ += node_size(*node);
  return node;
}

void NodeBuilder::destroy(Node* node) {
  digest_ -= node_digest(*node);
  approximate_data_size_ -= node_size(*node);
  Node::destroy(pool_, node);
}

DataTreeLoader::DataTreeLoader(size_t expected_nodes, bool extended_types)
    : tree_(DataTree::Empty{}, extended_types), builder_(extended_types) {
  reserve(expected_nodes);
  pending_.reserve(kIndexBatch);
}

// A loader given up before finish() leaves a tree that frees every node
// added (the builder is done by then, as for finish()).
DataTreeLoader::~DataTreeLoader() {
  index_pending();
  take_builder();
}

void DataTreeLoader::reserve(size_t expected_nodes) {
  // Room for the creates replayed from the log after the snapshot too, so
  // that they do not rehash a table of a million nodes.
  tree_.nodes_.reserve(expected_nodes + expected_nodes / 4);
}

bool DataTreeLoader::add(Node* node, const zk::wire::ACLs& acl) {
  const std::string_view path = node->path();
  Node* parent = nullptr;
  if (path != "/") {
    size_t slash = path.rfind('/');
    if (slash == std::string_view::npos || slash + 1 == path.size()) return false;
    std::string_view parent_path = slash == 0 ? std::string_view("/") : apache_parent(path);
    if (parent_ == nullptr || parent_path != parent_->path()) {
      index_pending();  // the parent may be among them
      parent_ = tree_.find_mutable(parent_path);
      if (parent_ == nullptr) return false;
    }
    parent = parent_;
  } else if (!tree_.nodes_.empty() || !pending_.empty()) {
    return false;
  }
  tree_.nodes_.prefetch(node);
  if (parent != nullptr) {
    // A parent's children are unique by name, as paths are unique: a node
    // its parent refuses is loaded already (and the index would refuse it).
    ChildSet& siblings = parent->mutable_children();
    if (*siblings.insert(siblings.end(), node) != node) return false;
  }
  pending_.push_back(node);
  if (last_acl_ != nullptr && last_acl_->first == acl) {
    AclCache::retain(last_acl_);
  } else {
    last_acl_ = tree_.acls_.acquire(acl);
  }
  node->acl_ = last_acl_;
  tree_.kinds_.add(*node);
  if (pending_.size() == kIndexBatch) index_pending();
  return true;
}

bool DataTreeLoader::add(std::string_view path, DataView data, const zk::wire::ACLs& acl,
                         const StoredStat& stat) {
  Node* node = builder_.make(path, data, stat);
  if (add(node, acl)) return true;
  discard(node);
  return false;
}

void DataTreeLoader::index_pending() {
  for (Node* node : pending_) tree_.nodes_.insert(node);  // unique: see add
  pending_.clear();
}

void DataTreeLoader::take_builder() {
  tree_.pool_ = std::move(builder_.pool_);  // the tree's own is unused
  tree_.digest_ = std::exchange(builder_.digest_, 0);
  tree_.approximate_data_size_ = std::exchange(builder_.approximate_data_size_, 0);
}

std::optional<DataTree> DataTreeLoader::finish() && {
  index_pending();
  take_builder();
  for (std::string_view path : {"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"}) {
    if (!tree_.exists(path)) return std::nullopt;
  }
  parent_ = nullptr;
  tree_.quota_.rebuild(tree_);
  return std::move(tree_);
}

int64_t newest_zxid(const DataTree& tree) {
  int64_t newest = 0;
  std::vector<const Node*> stack{tree.find("/")};
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    const StoredStat& s = node->stat();
    newest = std::max({newest, s.czxid, s.mzxid, s.pzxid});
    for (const Node* child : node->children()) stack.push_back(child);
  }
  return newest;
}

}  // namespace zkd::tree
