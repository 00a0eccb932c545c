// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/snapshot.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "zkd/tree/snapshot_format.h"

namespace zkd::tree {
namespace {

using namespace snapshot_format;  // NOLINT(google-build-using-namespace)

// --- encoding ---

void put_u8(std::string& out, char v) { out.push_back(v); }
void put_i32(std::string& out, int32_t v) {
  auto u = static_cast<uint32_t>(v);
  char b[4] = {static_cast<char>(u >> 24), static_cast<char>(u >> 16), static_cast<char>(u >> 8),
               static_cast<char>(u)};
  out.append(b, 4);
}
void put_i64(std::string& out, int64_t v) {
  auto u = static_cast<uint64_t>(v);
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(u >> (56 - 8 * i));
  out.append(b, 8);
}
void put_string(std::string& out, std::string_view s) {
  put_i32(out, static_cast<int32_t>(s.size()));
  out.append(s);
}

class TreeSnapshotCursor final : public Database::SnapshotCursor {
 public:
  TreeSnapshotCursor(const DataTree& tree, const SessionTable& sessions, int64_t zxid,
                     const int64_t* applied)
      : tree_(tree), zxid_(zxid), applied_(applied) {
    put_u8(header_, kHeader);
    put_i32(header_, kMagic);
    put_i32(header_, kVersion);
    put_i64(header_, zxid);
    put_i64(header_, tree.node_count() - 1);  // node_count() counts the root twice
    std::vector<SessionId> ids = sessions.ids();
    put_i32(header_, static_cast<int32_t>(ids.size()));
    for (SessionId id : ids) {
      put_i64(header_, id);
      put_i32(header_, sessions.timeout(id).value_or(0));
    }
  }

  int64_t zxid() const override { return zxid_; }

  std::string next_chunk(size_t max_nodes) override {
    if (done_) return {};
    max_nodes = std::max<size_t>(max_nodes, 1);
    std::string chunk;
    chunk.reserve(last_chunk_size_);
    chunk.assign(kChunkHeaderSize, '\0');  // filled in at the end
    size_t written = 0;
    previous_acl_ = nullptr;
    if (!started_) {
      started_ = true;
      chunk += header_;
      header_ = std::string();
      write_node(chunk, *tree_.find("/"));
      stack_.push_back(Level{"/", {}, false});
      ++written;
    }
    // Positions in the tree as it is during this call; the tree does not
    // change within a call, so these are safe until it returns.
    struct Position {
      const Node* node;
      ChildSet::const_iterator next;
    };
    std::vector<Position> positions;
    while (written < max_nodes && !stack_.empty()) {
      Level& level = stack_.back();
      // `positions` holds the topmost levels visited in this call (a suffix
      // of stack_): when it is empty, the top level is new to this call.
      if (positions.empty()) {
        const Node* node = tree_.find(level.path);
        if (node == nullptr) {  // deleted (with its subtree) since the last call
          stack_.pop_back();
          continue;
        }
        const ChildSet& children = node->children();
        positions.push_back(
            {node, level.started ? children.upper_bound(level.last) : children.begin()});
      }
      Position& at = positions.back();
      if (at.next == at.node->children().end()) {
        stack_.pop_back();
        positions.pop_back();
        continue;
      }
      const Node* node = *at.next++;
      level.last = node->name();
      level.started = true;
      write_node(chunk, *node);
      ++written;
      if (!node->children().empty()) {
        stack_.push_back(Level{std::string(node->path()), {}, false});  // invalidates `level`
        positions.push_back({node, node->children().begin()});
      }
    }
    if (stack_.empty()) {
      put_u8(chunk, kEnd);
      put_i64(chunk, nodes_);
      put_i64(chunk, applied_ != nullptr ? std::max(*applied_, zxid_) : zxid_);
      done_ = true;
    }
    std::string_view body = std::string_view(chunk).substr(kChunkHeaderSize);
    std::string frame;
    put_i32(frame, static_cast<int32_t>(body.size()));
    put_i64(frame, static_cast<int64_t>(checksum(body)));
    chunk.replace(0, kChunkHeaderSize, frame);
    last_chunk_size_ = chunk.size();
    return chunk;
  }

 private:
  // One node on the path from the root to where the walk is. Only names are
  // kept across calls: the tree may change in between.
  struct Level {
    std::string path;
    std::string last;      // the child written last (children go in name order)
    bool started = false;  // whether `last` is set
  };

  void write_node(std::string& out, const Node& node) {
    put_u8(out, kNode);
    put_string(out, node.path());
    if (DataView data = node.data()) {
      put_string(out, *data);
    } else {
      put_i32(out, -1);
    }
    // Interned lists: the same list is the same object.
    if (&node.acl() == previous_acl_) {
      put_i32(out, kSameAcl);
    } else {
      put_i32(out, static_cast<int32_t>(node.acl().size()));
      for (const zk::wire::ACL& acl : node.acl()) {
        put_i32(out, acl.perms);
        put_string(out, acl.id.scheme);
        put_string(out, acl.id.id);
      }
      previous_acl_ = &node.acl();
    }
    const StoredStat& s = node.stat();
    put_i64(out, s.czxid);
    put_i64(out, s.mzxid);
    put_i64(out, s.pzxid);
    put_i64(out, s.ctime);
    put_i64(out, s.mtime);
    put_i32(out, s.version);
    put_i32(out, s.cversion);
    put_i32(out, s.aversion);
    put_i64(out, s.ephemeral_owner);
    ++nodes_;
  }

  const DataTree& tree_;
  const int64_t zxid_;
  const int64_t* applied_;  // the tree's applied zxid, read when the walk ends
  std::string header_;
  std::vector<Level> stack_;
  // The interned list written last, compared by address within one call
  // only (between calls the tree may free it and reuse the address).
  const zk::wire::ACLs* previous_acl_ = nullptr;
  int64_t nodes_ = 0;
  size_t last_chunk_size_ = 0;
  bool started_ = false;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<Database::SnapshotCursor> start_snapshot(const DataTree& tree,
                                                         const SessionTable& sessions, int64_t zxid,
                                                         const int64_t* applied) {
  return std::make_unique<TreeSnapshotCursor>(tree, sessions, zxid, applied);
}

}  // namespace zkd::tree
