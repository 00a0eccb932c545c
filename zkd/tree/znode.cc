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

static_assert(sizeof(Node) == 48, "the fixed header every node pays for");

uint8_t Node::parts_for(const StoredStat& s) {
  uint8_t parts = 0;
  if (s.mzxid != s.czxid || s.mtime != s.ctime || s.version != 0) parts |= kModified;
  if (s.pzxid != s.czxid || s.cversion != 0) parts |= kParent;
  if (s.ephemeral_owner != 0 || s.aversion != 0) parts |= kOwned;
  return parts;
}

template <typename T>
T* Node::part(Part which) {
  if (!(parts_ & which)) return nullptr;
  // The parts before `which` come first.
  size_t offset = header_size(static_cast<uint8_t>(parts_ & (which - 1)));
  return std::launder(reinterpret_cast<T*>(reinterpret_cast<char*>(this) + offset));
}

Node::Node(std::string_view path, DataView data, uint8_t parts, size_t capacity)
    : path_size_(static_cast<uint32_t>(path.size())),
      name_offset_(static_cast<uint32_t>(path.rfind('/') + 1)),
      data_size_(data ? static_cast<int32_t>(data->size()) : -1),
      parts_(parts) {
  slack_ = static_cast<uint16_t>(capacity - used_size());
  if (parts & kModified) new (part<Modified>(kModified)) Modified{};
  if (parts & kParent) new (part<Parent>(kParent)) Parent{};
  if (parts & kOwned) new (part<Owned>(kOwned)) Owned{};
  // (memcpy from the null pointer of an empty view is undefined: skip those.)
  if (!path.empty()) std::memcpy(bytes(), path.data(), path.size());
  if (data && !data->empty()) std::memcpy(bytes() + path.size(), data->data(), data->size());
}

size_t Node::used_size() const {
  return header_size(parts_) + path_size_ + static_cast<size_t>(data_length());
}

Node* Node::make(NodePool& pool, std::string_view path, DataView data, uint8_t parts) {
  size_t capacity = 0;
  void* block = pool.allocate(header_size(parts) + path.size() + size_of(data), capacity);
  // A pooled block rounds up by less than a grain; a larger one is exact.
  return new (block) Node(path, data, parts, capacity);
}

void Node::destroy(NodePool& pool, Node* node) {
  const size_t capacity = node->used_size() + node->slack_;
  node->~Node();
  pool.deallocate(node, capacity);
}

StoredStat Node::stat() const {
  StoredStat s;
  s.czxid = s.mzxid = s.pzxid = czxid_;
  s.ctime = s.mtime = ctime_;
  if (const Modified* m = part<Modified>(kModified)) {
    s.mzxid = m->mzxid;
    s.mtime = m->mtime;
    s.version = m->version;
  }
  if (const Parent* p = part<Parent>(kParent)) {
    s.pzxid = p->pzxid;
    s.cversion = p->cversion;
  }
  if (const Owned* o = part<Owned>(kOwned)) {
    s.ephemeral_owner = o->ephemeral_owner;
    s.aversion = o->aversion;
  }
  s.kind = kind_;
  return s;
}

void Node::store(const StoredStat& s) {
  czxid_ = s.czxid;
  ctime_ = s.ctime;
  kind_ = s.kind;
  if (Modified* m = part<Modified>(kModified)) *m = Modified{s.mzxid, s.mtime, s.version};
  if (Parent* p = part<Parent>(kParent)) *p = Parent{s.pzxid, s.cversion};
  if (Owned* o = part<Owned>(kOwned)) *o = Owned{s.ephemeral_owner, s.aversion};
}

bool Node::assign_data_in_place(DataView data) {
  const size_t capacity = used_size() + slack_;
  const size_t used = header_size(parts_) + path_size_ + size_of(data);
  if (used > capacity || capacity - used > UINT16_MAX) return false;
  if (data && !data->empty() && data->data() != bytes() + path_size_) {
    std::memmove(bytes() + path_size_, data->data(), data->size());
  }
  data_size_ = data ? static_cast<int32_t>(data->size()) : -1;
  slack_ = static_cast<uint16_t>(capacity - used);
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
  const StoredStat s = node.stat();
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
