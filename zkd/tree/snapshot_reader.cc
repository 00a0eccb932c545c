// SPDX-License-Identifier: Apache-2.0
// read_snapshot (snapshot.h): decoding a payload into a tree.
//
// Two halves, which run on two threads when the payload is big: the decoder
// checks each chunk, reads its records and makes their nodes (the loader's
// NodeBuilder: allocation, copying path and data, the digest); the linker,
// on the calling thread, adds them to the tree (index, parent's children,
// ACL, kinds). A chunk's nodes go from one to the other as one batch
// through a Handoff of a few batches. Either half's first fault ends the
// load, with the chunk's offset in the message; faults come out in the
// payload's order, as one thread would find them.
#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "zkd/tree/handoff.h"
#include "zkd/tree/snapshot.h"
#include "zkd/tree/snapshot_format.h"

namespace zkd::tree {
namespace {

using namespace snapshot_format;  // NOLINT(google-build-using-namespace)

// From this payload size on the two halves run on two threads (below, a
// thread's start would cost more than it saves).
constexpr size_t kTwoThreadsFrom = size_t{1} << 20;
// Batches (chunks) decoded ahead of the linker at most.
constexpr size_t kBatchesAhead = 4;

Status chunk_error(std::string_view what, size_t offset) {
  return Status::corruption("snapshot: " + std::string(what) + " in the chunk at offset " +
                            std::to_string(offset));
}

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

// One chunk's nodes, made and not yet added, in payload order.
struct NodeBatch {
  struct Entry {
    Node* node;
    uint32_t acl;  // in `acls`
  };
  size_t offset = 0;  // of the chunk
  std::vector<Entry> nodes;
  std::vector<zk::wire::ACLs> acls;      // the lists the chunk's records spell out
  std::optional<size_t> expected_nodes;  // the header's hint, in the first batch
  Status fault;                          // the chunk's, after its good nodes
  size_t added = 0;                      // by the linker; the rest are to discard
};

// The decoding half: used by one thread, with the loader's builder.
class SnapshotDecoder {
 public:
  // `max_nodes`: the most node records `payload` could hold.
  SnapshotDecoder(std::string_view payload, size_t max_nodes, NodeBuilder& builder)
      : payload_(payload), max_nodes_(max_nodes), builder_(builder) {}

  // The next chunk's nodes; nullopt after the last chunk and after a batch
  // with a fault.
  std::optional<NodeBatch> next() {
    if (offset_ >= payload_.size() || faulted_) return std::nullopt;
    NodeBatch batch;
    batch.offset = offset_;
    batch.fault = chunk(batch);
    faulted_ = !batch.fault.ok();
    return batch;
  }

  // Once next() has returned nullopt with no fault: the whole payload's.
  Status verdict() const {
    if (!header_) return Status::corruption("snapshot: empty payload");
    if (!ended_) return Status::corruption("snapshot: truncated (no end record)");
    return {};
  }
  int64_t zxid() const { return zxid_; }
  int64_t walked() const { return walked_; }
  SessionTable take_sessions() { return std::move(sessions_); }

 private:
  // Decodes the chunk at offset_ into `batch` and moves past it.
  Status chunk(NodeBatch& batch) {
    const size_t offset = offset_;
    if (ended_) return chunk_error("bytes after the end record", offset);
    Input frame(payload_.substr(offset));
    auto length = static_cast<uint32_t>(frame.i32());
    auto sum = static_cast<uint64_t>(frame.i64());
    if (!frame.ok() || frame.remaining() < length) return chunk_error("truncated chunk", offset);
    std::string_view body = payload_.substr(offset + kChunkHeaderSize, length);
    if (checksum(body) != sum) return chunk_error("chunk checksum mismatch", offset);
    batch.nodes.reserve(last_batch_size_);
    if (Status s = records(body, batch); !s.ok()) return chunk_error(s.message(), offset);
    last_batch_size_ = batch.nodes.size();
    offset_ += kChunkHeaderSize + length;
    return {};
  }

  // What is wrong with one chunk's records, said without the chunk.
  Status records(std::string_view body, NodeBatch& batch) {
    Input in(body);
    while (!in.at_end()) {
      if (ended_) return Status::corruption("record after the end record");
      char tag = in.u8();
      if (!header_ && tag != kHeader) return Status::corruption("no header record");
      switch (tag) {
        case kHeader:
          if (header_) return Status::corruption("second header record");
          if (!read_header(in, batch)) return Status::corruption("bad header record");
          header_ = true;
          break;
        case kNode:
          if (Status s = read_node(in, batch); !s.ok()) return s;
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

  bool read_header(Input& in, NodeBatch& batch) {
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
    batch.expected_nodes = std::min(expected, max_nodes_);
    return in.ok();
  }

  Status read_node(Input& in, NodeBatch& batch) {
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
    // The batch keeps each list its nodes name, a run of nodes one copy.
    if (batch.acls.empty() || (acl_count != kSameAcl && batch.acls.back() != previous_acl_)) {
      batch.acls.push_back(previous_acl_);
    }
    batch.nodes.push_back(
        {builder_.make(path, data, s), static_cast<uint32_t>(batch.acls.size() - 1)});
    ++nodes_;
    return {};
  }

  const std::string_view payload_;
  const size_t max_nodes_;
  NodeBuilder& builder_;
  size_t offset_ = 0;  // of the next chunk
  size_t last_batch_size_ = 0;
  bool faulted_ = false;
  bool header_ = false;
  bool ended_ = false;
  int32_t version_ = 0;
  int64_t zxid_ = 0;
  int64_t walked_ = 0;
  int64_t nodes_ = 0;
  SessionTable sessions_;
  zk::wire::ACLs previous_acl_;
};

// The linking half: adds a batch's nodes to the loader, then reports the
// batch's own fault. False at the first fault (in `fault`); batch.added
// says how many nodes were added.
bool link(DataTreeLoader& loader, NodeBatch& batch, Status& fault) {
  if (batch.expected_nodes) loader.reserve(*batch.expected_nodes);
  for (const NodeBatch::Entry& entry : batch.nodes) {
    if (!loader.add(entry.node, batch.acls[entry.acl])) {
      fault = chunk_error("node " + std::string(entry.node->path().substr(0, 200)) +
                              " out of place (no parent, duplicate or malformed)",
                          batch.offset);
      return false;
    }
    ++batch.added;
  }
  fault = std::move(batch.fault);
  return fault.ok();
}

// Runs the decoder on a thread of its own while this one links what it
// decodes; `leftovers` gets the batches whose nodes were not all added.
// Returns once that thread is done (and so the builder is free).
Status decode_on_two_threads(SnapshotDecoder& decoder, DataTreeLoader& loader,
                             std::vector<NodeBatch>& leftovers) {
  Handoff<NodeBatch> handoff(kBatchesAhead);
  std::optional<NodeBatch> unsent;  // refused by a cancelled handoff
  std::exception_ptr thrown;        // by the decoder (bad_alloc)
  std::thread decoding([&] {
    try {
      while (std::optional<NodeBatch> batch = decoder.next()) {
        if (!handoff.push(*batch)) {
          unsent = std::move(batch);
          break;
        }
      }
    } catch (...) {
      thrown = std::current_exception();
    }
    handoff.finish();
  });
  // Whatever way this thread leaves (a fault, or an exception from the
  // linking), the decoder stops and is joined first.
  struct Join {
    Handoff<NodeBatch>& handoff;
    std::thread& thread;
    ~Join() {
      handoff.cancel();
      thread.join();
    }
  };
  Status fault;
  {
    Join join{handoff, decoding};
    while (std::optional<NodeBatch> batch = handoff.pop()) {
      if (!link(loader, *batch, fault)) {
        leftovers.push_back(std::move(*batch));
        break;
      }
    }
  }
  for (NodeBatch& batch : handoff.drain()) leftovers.push_back(std::move(batch));
  if (unsent) leftovers.push_back(std::move(*unsent));
  if (thrown) std::rethrow_exception(thrown);
  return fault;
}

Status decode_on_one_thread(SnapshotDecoder& decoder, DataTreeLoader& loader,
                            std::vector<NodeBatch>& leftovers) {
  Status fault;
  while (std::optional<NodeBatch> batch = decoder.next()) {
    if (!link(loader, *batch, fault)) {
      leftovers.push_back(std::move(*batch));
      break;
    }
  }
  return fault;
}

}  // namespace

StatusOr<LoadedSnapshot> read_snapshot(std::string_view payload, bool extended_types) {
  DataTreeLoader loader(0, extended_types);
  // The smallest node record: tag, path "/x", null data, same ACL, the stat.
  SnapshotDecoder decoder(payload, payload.size() / (1 + 6 + 4 + 4 + 5 * 8 + 3 * 4 + 8),
                          loader.builder());
  std::vector<NodeBatch> leftovers;
  Status fault = payload.size() >= kTwoThreadsFrom
                     ? decode_on_two_threads(decoder, loader, leftovers)
                     : decode_on_one_thread(decoder, loader, leftovers);
  // The builder is done: what was made and not added is freed here.
  for (NodeBatch& batch : leftovers) {
    for (size_t i = batch.added; i < batch.nodes.size(); ++i) loader.discard(batch.nodes[i].node);
  }
  if (!fault.ok()) return fault;
  if (Status s = decoder.verdict(); !s.ok()) return s;
  std::optional<DataTree> tree = std::move(loader).finish();
  if (!tree) return Status::corruption("snapshot: a system node is missing");
  return LoadedSnapshot{decoder.zxid(), std::move(*tree), decoder.take_sessions(),
                        decoder.walked()};
}

}  // namespace zkd::tree
