// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/znode.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace zkd::tree {
namespace {

const ChildSet kNoChildren;

size_t size_of(DataView data) { return data ? data->size() : 0; }

}  // namespace

bool ByName::operator()(const Node* a, const Node* b) const { return a->name() < b->name(); }
bool ByName::operator()(const Node* a, std::string_view b) const { return a->name() < b; }
bool ByName::operator()(std::string_view a, const Node* b) const { return a < b->name(); }

Node::Node(std::string_view path, DataView data, size_t block_size)
    : path_size_(static_cast<uint32_t>(path.size())),
      name_offset_(static_cast<uint32_t>(path.rfind('/') + 1)),
      data_size_(data ? static_cast<int32_t>(data->size()) : -1),
      block_size_(static_cast<uint32_t>(block_size)) {
  // (memcpy from the null pointer of an empty view is undefined: skip those.)
  if (!path.empty()) std::memcpy(bytes(), path.data(), path.size());
  if (data && !data->empty()) std::memcpy(bytes() + path.size(), data->data(), data->size());
}

Node* Node::make(NodePool& pool, std::string_view path, DataView data) {
  size_t capacity = 0;
  void* block = pool.allocate(sizeof(Node) + path.size() + size_of(data), capacity);
  return new (block) Node(path, data, capacity);
}

void Node::destroy(NodePool& pool, Node* node) {
  const size_t capacity = node->block_size_;
  node->~Node();
  pool.deallocate(node, capacity);
}

bool Node::assign_data_in_place(DataView data) {
  if (sizeof(Node) + path_size_ + size_of(data) > block_size_) return false;
  if (data && !data->empty()) std::memcpy(bytes() + path_size_, data->data(), data->size());
  data_size_ = data ? static_cast<int32_t>(data->size()) : -1;
  return true;
}

ChildSet& Node::mutable_children() {
  if (!children_) children_ = std::make_unique<ChildSet>();
  return *children_;
}

const ChildSet& Node::children() const { return children_ ? *children_ : kNoChildren; }

zk::wire::Buffer Node::data_buffer() const {
  DataView d = data();
  return d ? zk::wire::Buffer(std::string(*d)) : std::nullopt;
}

zk::wire::Stat client_stat(const Node& node) {
  const StoredStat& s = node.stat();
  auto children = static_cast<uint32_t>(node.children().size());
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
  out.data_length = static_cast<int32_t>(node.data_length());
  out.num_children = static_cast<int32_t>(children);
  out.pzxid = s.pzxid;
  return out;
}

}  // namespace zkd::tree
