// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/snapshot.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

namespace zkd::tree {
namespace {

constexpr int32_t kMagic = 0x5a4b5453;  // "ZKTS"
// 2: the end record says up to which zxid the walk saw the tree (1: it
// does not, which reads as the header's zxid).
constexpr int32_t kVersion = 2;
constexpr int32_t kSameAcl = -2;
constexpr char kHeader = 'H';
constexpr char kNode = 'N';
constexpr char kEnd = 'E';
constexpr size_t kChunkHeaderSize = 12;

// A 64-bit checksum of a chunk body: the bytes taken as little-endian 64-bit
// words (the tail zero-padded), each mixed in with a multiply and a shift,
// even and odd words in two lanes that are combined at the end.
// Not cryptographic; it catches garbled bytes, the storage layer's CRC does
// the rest.
uint64_t checksum(std::string_view s) {
  auto mix = [](uint64_t h, uint64_t w) {
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 29);
  };
  auto load = [](const char* p, size_t n) {  // n in 1..8; the missing bytes read as zero
    uint64_t w = 0;
    std::memcpy(&w, p, n);  // one load when n is 8
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    return w;
  };
  // Two independent lanes (even and odd words) run in parallel.
  uint64_t h0 = 0x9e3779b97f4a7c15ULL ^ s.size();
  uint64_t h1 = 0xc2b2ae3d27d4eb4fULL;
  size_t i = 0;
  for (; i + 16 <= s.size(); i += 16) {
    h0 = mix(h0, load(s.data() + i, 8));
    h1 = mix(h1, load(s.data() + i + 8, 8));
  }
  for (; i < s.size(); i += 8) h0 = mix(h0, load(s.data() + i, std::min<size_t>(8, s.size() - i)));
  return mix(h0, h1);
}

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

// --- decoding ---

// Reads big-endian fields from a byte range; any read past the end, or a
// length that does not fit, clears ok.
class Input {
 public:
  explicit Input(std::string_view bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  bool ok() const { return ok_; }
  bool at_end() const { return p_ == end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

  char u8() { return take(1) ? p_[-1] : 0; }
  int32_t i32() {
    if (!take(4)) return 0;
    auto b = reinterpret_cast<const unsigned char*>(p_ - 4);
    return static_cast<int32_t>(uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 |
                                uint32_t{b[3]});
  }
  int64_t i64() {
    if (!take(8)) return 0;
    auto b = reinterpret_cast<const unsigned char*>(p_ - 8);
    uint64_t u = 0;
    for (int i = 0; i < 8; ++i) u = u << 8 | b[i];
    return static_cast<int64_t>(u);
  }
  // Views into the input's bytes.
  std::string_view string() {
    int32_t n = i32();
    if (n < 0 || !take(static_cast<size_t>(n))) {
      ok_ = false;
      return {};
    }
    return {p_ - n, static_cast<size_t>(n)};
  }
  DataView buffer() {
    int32_t n = i32();
    if (n == -1) return std::nullopt;
    if (n < 0 || !take(static_cast<size_t>(n))) {
      ok_ = false;
      return std::nullopt;
    }
    return std::string_view(p_ - n, static_cast<size_t>(n));
  }

 private:
  bool take(size_t n) {
    if (!ok_ || remaining() < n) {
      ok_ = false;
      return false;
    }
    p_ += n;
    return true;
  }

  const char* p_;
  const char* end_;
  bool ok_ = true;
};

class SnapshotDecoder {
 public:
  // `max_nodes`: the most node records the payload could hold.
  // `extended_types`: how the nodes' owners are read (container_kind.h).
  SnapshotDecoder(size_t max_nodes, bool extended_types)
      : max_nodes_(max_nodes), extended_types_(extended_types) {}

  // The whole payload decoded, or a corruption naming what is wrong and
  // the offset of its chunk.
  StatusOr<LoadedSnapshot> decode(std::string_view payload) {
    size_t offset = 0;
    while (offset < payload.size()) {
      if (ended_) return error("bytes after the end record", offset);
      Input frame(payload.substr(offset));
      auto length = static_cast<uint32_t>(frame.i32());
      auto sum = static_cast<uint64_t>(frame.i64());
      if (!frame.ok() || frame.remaining() < length) return error("truncated chunk", offset);
      std::string_view body = payload.substr(offset + kChunkHeaderSize, length);
      if (checksum(body) != sum) return error("chunk checksum mismatch", offset);
      if (Status s = records(body); !s.ok()) return error(s.message(), offset);
      offset += kChunkHeaderSize + length;
    }
    if (!header_) return Status::corruption("snapshot: empty payload");
    if (!ended_) return Status::corruption("snapshot: truncated (no end record)");
    std::optional<DataTree> tree = std::move(*loader_).finish();
    if (!tree) return Status::corruption("snapshot: a system node is missing");
    return LoadedSnapshot{zxid_, std::move(*tree), std::move(sessions_), walked_};
  }

 private:
  static Status error(std::string_view what, size_t offset) {
    return Status::corruption("snapshot: " + std::string(what) + " in the chunk at offset " +
                              std::to_string(offset));
  }

  // What is wrong with one chunk's records, said without the chunk.
  Status records(std::string_view body) {
    Input in(body);
    while (!in.at_end()) {
      if (ended_) return Status::corruption("record after the end record");
      char tag = in.u8();
      if (!header_ && tag != kHeader) return Status::corruption("no header record");
      switch (tag) {
        case kHeader:
          if (header_) return Status::corruption("second header record");
          if (!read_header(in)) return Status::corruption("bad header record");
          header_ = true;
          break;
        case kNode:
          if (Status s = read_node(in); !s.ok()) return s;
          break;
        case kEnd:
          if (in.i64() != nodes_ || !in.ok()) return Status::corruption("node count mismatch");
          walked_ = version_ >= 2 ? in.i64() : zxid_;
          if (!in.ok() || walked_ < zxid_) return Status::corruption("bad end record");
          ended_ = true;
          break;
        default:
          return Status::corruption("unknown record");
      }
      if (!in.ok()) return Status::corruption("truncated record");
    }
    return {};
  }

  bool read_header(Input& in) {
    if (in.i32() != kMagic) return false;
    version_ = in.i32();
    if (version_ < 1 || version_ > kVersion) return false;
    zxid_ = in.i64();
    int64_t hint = in.i64();
    int32_t count = in.i32();
    if (!in.ok() || count < 0 || static_cast<size_t>(count) > in.remaining() / 12) return false;
    for (int32_t i = 0; i < count; ++i) {
      SessionId id = in.i64();
      sessions_.open(id, in.i32());
    }
    // A hint only; not trusted beyond what the payload could hold.
    size_t expected = hint < 0 ? 0 : static_cast<size_t>(hint);
    loader_.emplace(std::min(expected, max_nodes_), extended_types_);
    return in.ok();
  }

  Status read_node(Input& in) {
    std::string_view path = in.string();
    DataView data = in.buffer();
    int32_t acl_count = in.i32();
    if (acl_count == kSameAcl) {
      if (nodes_ == 0) return Status::corruption("no previous ACL");
    } else {
      if (acl_count < 0 || static_cast<size_t>(acl_count) > in.remaining() / 12) {
        return Status::corruption("bad ACL count");
      }
      previous_acl_.resize(static_cast<size_t>(acl_count));
      for (zk::wire::ACL& entry : previous_acl_) {
        entry.perms = in.i32();
        entry.id.scheme = in.string();
        entry.id.id = in.string();
      }
    }
    StoredStat s;
    s.czxid = in.i64();
    s.mzxid = in.i64();
    s.pzxid = in.i64();
    s.ctime = in.i64();
    s.mtime = in.i64();
    s.version = in.i32();
    s.cversion = in.i32();
    s.aversion = in.i32();
    s.ephemeral_owner = in.i64();
    if (!in.ok()) return Status::corruption("truncated node record");
    if (!loader_->add(path, data, previous_acl_, s)) {
      return Status::corruption("node " + std::string(path.substr(0, 200)) +
                                " out of place (no parent, duplicate or malformed)");
    }
    ++nodes_;
    return {};
  }

  const size_t max_nodes_;
  const bool extended_types_;
  bool header_ = false;
  bool ended_ = false;
  int32_t version_ = 0;
  int64_t zxid_ = 0;
  int64_t walked_ = 0;
  int64_t nodes_ = 0;
  SessionTable sessions_;
  zk::wire::ACLs previous_acl_;
  std::optional<DataTreeLoader> loader_;
};

}  // namespace

std::unique_ptr<Database::SnapshotCursor> start_snapshot(const DataTree& tree,
                                                         const SessionTable& sessions, int64_t zxid,
                                                         const int64_t* applied) {
  return std::make_unique<TreeSnapshotCursor>(tree, sessions, zxid, applied);
}

StatusOr<LoadedSnapshot> read_snapshot(std::string_view payload, bool extended_types) {
  // The smallest node record: tag, path "/x", null data, same ACL, the stat.
  SnapshotDecoder decoder(payload.size() / (1 + 6 + 4 + 4 + 5 * 8 + 3 * 4 + 8), extended_types);
  return decoder.decode(payload);
}

}  // namespace zkd::tree
