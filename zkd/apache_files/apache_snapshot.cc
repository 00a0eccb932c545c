// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_files/apache_snapshot.h"

#include <absl/container/flat_hash_map.h>

#include <cstdio>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"
#include "zkd/apache_files/apache_format.h"

namespace zkd::apache {
namespace {

using zk::wire::ACLs;

constexpr int64_t kOpenAclKey = -1;
constexpr int64_t kProgressEvery = 1 << 16;
constexpr size_t kSinkPiece = 1 << 20;
// The optional parts after the first seal: a seal is i64 + ustring "/".
constexpr size_t kSealSize = 8 + 4 + 1;
constexpr size_t kDigestPartSize = 8 + 4 + 8 + kSealSize;
constexpr size_t kLastZxidPartSize = 8 + kSealSize;

// Reads `bytes` with the offset of every failure at hand.
class SnapshotReader {
 public:
  // `advice`: what the error says to do about a damaged record.
  SnapshotReader(std::string_view bytes, const std::string& file, std::string advice)
      : bytes_(bytes), file_(file), advice_(std::move(advice)), r_(bytes) {}

  size_t offset() const { return bytes_.size() - r_.remaining(); }
  zk::wire::Reader& r() { return r_; }

  // The error for a record that starts at `at` and does not read.
  Status damaged(size_t at, const std::string& what) const {
    return Status::corruption(file_ + ": offset " + std::to_string(at) + ": " + what + "; " +
                              advice_);
  }

  // A seal: the Adler-32 of every byte before it, then the path "/".
  Status seal(const char* after) {
    const size_t at = offset();
    const uint32_t expected = adler32(1, bytes_.substr(0, at));
    const int64_t stored = r_.int64();
    const std::string slash = r_.ustring();
    if (!r_.ok() || slash != "/") return damaged(at, std::string("no seal after ") + after);
    if (static_cast<uint32_t>(stored) != expected) {
      return damaged(at, std::string("the checksum after ") + after + " does not match");
    }
    return Status();
  }

 private:
  std::string_view bytes_;
  const std::string& file_;
  std::string advice_;
  zk::wire::Reader r_;
};

tree::StoredStat read_stat(zk::wire::Reader& r) {
  tree::StoredStat s;
  s.czxid = r.int64();
  s.mzxid = r.int64();
  s.ctime = r.int64();
  s.mtime = r.int64();
  s.version = r.int32();
  s.cversion = r.int32();
  s.aversion = r.int32();
  s.ephemeral_owner = r.int64();
  s.pzxid = r.int64();
  return s;
}

void write_stat(zk::wire::Writer& w, const tree::StoredStat& s) {
  w.int64(s.czxid);
  w.int64(s.mzxid);
  w.int64(s.ctime);
  w.int64(s.mtime);
  w.int32(s.version);
  w.int32(s.cversion);
  w.int32(s.aversion);
  w.int64(s.ephemeral_owner);
  w.int64(s.pzxid);
}

// The sessions, the ACL map and the nodes up to the path "/" that ends them:
// what a snapshot file holds after its header, and a leader's SNAP stream
// before its signature.
StatusOr<tree::LoadedSnapshot> read_state(SnapshotReader& in, size_t size_hint, bool extended_types,
                                          const NodeProgress& progress) {
  auto& r = in.r();
  tree::LoadedSnapshot out;
  size_t at = in.offset();
  const int32_t session_count = r.int32();
  for (int32_t i = 0; r.ok() && i < session_count; ++i) {
    const int64_t id = r.int64();
    const int32_t timeout = r.int32();
    if (r.ok()) out.sessions.open(id, timeout);
  }
  if (!r.ok() || session_count < 0) return in.damaged(at, "the session table does not read");

  at = in.offset();
  const int32_t acl_count = r.int32();
  absl::flat_hash_map<int64_t, ACLs> acls;
  for (int32_t i = 0; r.ok() && i < acl_count; ++i) {
    const int64_t key = r.int64();
    ACLs list = zk::wire::read_acls(r);
    if (r.ok()) acls[key] = std::move(list);
  }
  if (!r.ok() || acl_count < 0) return in.damaged(at, "the ACL map does not read");

  tree::DataTreeLoader loader(size_hint / 128, extended_types);
  int64_t nodes = 0;
  for (;;) {
    at = in.offset();
    std::string path = r.ustring();
    if (!r.ok()) return in.damaged(at, "a node's path does not read");
    if (path == "/") break;  // the end of the nodes
    zk::wire::Buffer data = r.buffer();
    const int64_t acl_key = r.int64();
    const tree::StoredStat stat = read_stat(r);
    if (!r.ok()) return in.damaged(at, "the node " + path + " does not read");
    const ACLs* acl = &zk::wire::open_acl_unsafe();
    if (acl_key != kOpenAclKey) {
      auto it = acls.find(acl_key);
      if (it == acls.end()) {
        return in.damaged(at, "the node " + path + " names ACL " + std::to_string(acl_key) +
                                  ", which the ACL map lacks");
      }
      acl = &it->second;
    }
    if (path.empty()) path = "/";
    if (!loader.add(path, tree::view_of(data), *acl, stat)) {
      return in.damaged(at, "the node " + path + " comes before its parent or twice");
    }
    if (++nodes % kProgressEvery == 0 && progress) progress(nodes);
  }
  auto tree = std::move(loader).finish();
  if (!tree) {
    return in.damaged(in.offset(),
                      "the tree lacks /, /zookeeper, /zookeeper/quota or "
                      "/zookeeper/config");
  }
  out.tree = std::move(*tree);
  if (progress) progress(nodes);
  return out;
}

}  // namespace

StatusOr<tree::LoadedSnapshot> read_apache_snapshot(std::string_view bytes, const std::string& file,
                                                    bool extended_types,
                                                    const NodeProgress& progress) {
  SnapshotReader in(bytes, file,
                    "the snapshot is damaged (Apache would skip it too: import from an older "
                    "one by moving this file aside)");
  auto& r = in.r();
  const int32_t magic = r.int32();
  const int32_t version = r.int32();
  r.int64();  // dbid
  if (!r.ok() || magic != kSnapshotMagic) {
    return in.damaged(0, "not an Apache ZooKeeper snapshot (no ZKSN file header)");
  }
  if (version != kFormatVersion) {
    return in.damaged(4, "snapshot format version " + std::to_string(version) +
                             " (only version 2, Apache 3.x's, is read)");
  }
  StatusOr<tree::LoadedSnapshot> out = read_state(in, bytes.size(), extended_types, progress);
  if (!out.ok()) return out;
  if (Status s = in.seal("the nodes"); !s.ok()) return s;
  // 3.6+ adds the tree's digest, 3.9+ the last processed zxid; each has its
  // own seal. Their sizes tell which are there.
  if (r.remaining() >= kDigestPartSize && r.remaining() != kLastZxidPartSize) {
    r.int64();  // zxid
    r.int32();  // digest version
    r.int64();  // digest: zkd computes the tree's own
    if (Status s = in.seal("the digest"); !s.ok()) return s;
  }
  if (r.remaining() == kLastZxidPartSize) {
    out->zxid = r.int64();
    if (Status s = in.seal("the last zxid"); !s.ok()) return s;
  }
  if (r.remaining() != 0) {
    return in.damaged(in.offset(), std::to_string(r.remaining()) +
                                       " bytes follow the last seal, which no Apache version "
                                       "writes");
  }
  return out;
}

StatusOr<tree::LoadedSnapshot> read_apache_snap_stream(std::string_view bytes,
                                                       bool extended_types) {
  const std::string what = "the leader's snapshot stream";
  SnapshotReader in(bytes, what, "the leader sent a damaged snapshot");
  StatusOr<tree::LoadedSnapshot> out = read_state(in, bytes.size(), extended_types, nullptr);
  if (!out.ok()) return out;
  auto& r = in.r();
  const size_t at = in.offset();
  const std::string signature = r.ustring();
  if (!r.ok() || signature != kSnapStreamSignature)
    return in.damaged(at, "no signature after the nodes");
  if (r.remaining() != 0) {
    return in.damaged(in.offset(), std::to_string(r.remaining()) + " bytes after the signature");
  }
  return out;
}

namespace {

// A snapshot file (`file`: header, state, seal) or a leader's SNAP stream
// (state, signature).
Status write_state(const tree::DataTree& tree, const tree::SessionTable& sessions,
                   const ByteSink& sink, const NodeProgress& progress, bool file) {
  std::string buffer;
  zk::wire::Writer w(buffer);
  uint32_t checksum = 1;
  const auto flush = [&]() -> Status {
    checksum = adler32(checksum, buffer);
    Status s = sink(buffer);
    buffer.clear();
    return s;
  };
  if (file) {
    w.int32(kSnapshotMagic);
    w.int32(kFormatVersion);
    w.int64(kSnapshotDbId);
  }
  const auto ids = sessions.ids();
  w.int32(static_cast<int32_t>(ids.size()));
  for (tree::SessionId id : ids) {
    w.int64(id);
    w.int32(*sessions.timeout(id));
  }

  // Pre-order from the root, children by name: the order of both walks below.
  std::vector<const tree::Node*> order;
  order.reserve(static_cast<size_t>(tree.node_count()));
  std::vector<const tree::Node*> stack{tree.find("/")};
  while (!stack.empty()) {
    const tree::Node* node = stack.back();
    stack.pop_back();
    order.push_back(node);
    const auto& children = node->children();
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }

  // One key per distinct ACL list, numbered from 1 as Apache's ReferenceCountedACLCache does.
  absl::flat_hash_map<std::string, int64_t> keys;
  std::vector<std::string> encoded_lists;
  std::vector<int64_t> node_keys;
  node_keys.reserve(order.size());
  for (const tree::Node* node : order) {
    std::string encoded;
    zk::wire::Writer acl_writer(encoded);
    zk::wire::write_acls(acl_writer, node->acl());
    auto [it, added] = keys.try_emplace(encoded, static_cast<int64_t>(keys.size()) + 1);
    if (added) encoded_lists.push_back(std::move(encoded));
    node_keys.push_back(it->second);
  }
  w.int32(static_cast<int32_t>(encoded_lists.size()));
  for (size_t i = 0; i < encoded_lists.size(); ++i) {
    w.int64(static_cast<int64_t>(i) + 1);
    buffer += encoded_lists[i];
  }

  for (size_t i = 0; i < order.size(); ++i) {
    const tree::Node& node = *order[i];
    w.ustring(node.path() == "/" ? std::string_view() : node.path());
    w.buffer(node.data_buffer());
    w.int64(node_keys[i]);
    write_stat(w, node.stat());
    if (buffer.size() >= kSinkPiece) {
      if (Status s = flush(); !s.ok()) return s;
    }
    if ((i + 1) % kProgressEvery == 0 && progress) progress(static_cast<int64_t>(i + 1));
  }
  w.ustring("/");
  if (file) {
    if (Status s = flush(); !s.ok()) return s;
    w.int64(checksum);
    w.ustring("/");
  } else {
    w.ustring(kSnapStreamSignature);
  }
  if (progress) progress(static_cast<int64_t>(order.size()));
  return sink(buffer);
}

}  // namespace

Status write_apache_snapshot(const tree::DataTree& tree, const tree::SessionTable& sessions,
                             const ByteSink& sink, const NodeProgress& progress) {
  return write_state(tree, sessions, sink, progress, true);
}

Status write_apache_snap_stream(const tree::DataTree& tree, const tree::SessionTable& sessions,
                                const ByteSink& sink) {
  return write_state(tree, sessions, sink, nullptr, false);
}

}  // namespace zkd::apache
