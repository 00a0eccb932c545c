// SPDX-License-Identifier: Apache-2.0
// Streamed snapshots (docs/replication.md, "Streamed snapshots"): how a
// leader's replica host sends its state to a learner that needs a Snap
// without walking the whole tree at once or building one message of it, and
// how the learner's host writes it to disk as it arrives.
//
// Leader: a Snap the core sends goes out with no attachment, and a fuzzy
// walk of the tree begins (Database::begin_snapshot, at the Snap's zxid). Its
// chunks follow as SnapChunk messages, a few at a time (pump()), as long as
// the link's queue stays short; every other message for that learner waits
// behind the stream and leaves, in order, after its last SnapChunk. The walk
// sees commits applied meanwhile (fuzzy): the txns after the Snap's zxid,
// which the learner is sent anyway, repair the state, and until it has
// applied the zxid the walk ended at (the payload's end record says which:
// Database::fuzzy_until()) its tree need not equal the leader's at the same
// zxid.
//
// Learner: the Snap's state is written into the install staging directory
// (snapshot_install.h) chunk by chunk, with bounded memory; the Snap message
// is handed to the core only once the last chunk is in, so the install the
// core then asks for reads the staged file.
//
// Both are used by the replica host's thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "zkd/server/recovery.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"
#include "zkd/storage/snapshot_file.h"
#include "zkd/tree/database.h"
#include "zkd/zab/message.h"

namespace zkd::server {

// How big the pieces are and how far ahead of the link the leader walks.
struct SnapshotStreamLimits {
  size_t chunk_nodes = 256;            // nodes per SnapChunk
  uint64_t queued_bytes = 4ull << 20;  // no chunk while the link holds this much
  size_t nodes_per_pump = 256;         // nodes walked per pump() per learner
};

class OutgoingSnapshots {
 public:
  using Send = std::function<void(zab::Message message, std::string attachment)>;
  using QueuedBytes = std::function<uint64_t(zab::ServerId peer)>;

  OutgoingSnapshots(SnapshotStreamLimits limits, Send send, QueuedBytes queued)
      : limits_(limits), send_(std::move(send)), queued_(std::move(queued)) {}

  // Sends `message` now, or holds it behind a stream to its learner. A Snap
  // (re)starts the stream to its learner from `db`, whose last applied zxid
  // must be the Snap's; `db` must outlive the stream (drop_all() first).
  void send(zab::Message message, const tree::Database& db);
  // Walks and sends what the limits allow; a stream whose walk is done sends
  // its last SnapChunk and releases the messages held behind it.
  void pump(const tree::Database& db);
  // The stream to `peer` and what it held go (the link went down).
  void drop(zab::ServerId peer);
  // Every stream goes (the leader stopped leading, or its tree was replaced).
  void drop_all() { streams_.clear(); }

  bool streaming() const { return !streams_.empty(); }

 private:
  struct Stream {
    zab::Message snap;  // the Snap: its zxid, from and to
    std::unique_ptr<tree::Database::SnapshotCursor> cursor;
    std::deque<zab::Message> held;
    uint64_t bytes = 0;
  };
  // Sends chunks of `stream`; true when its walk is done.
  bool advance(Stream& stream);

  SnapshotStreamLimits limits_;
  Send send_;
  QueuedBytes queued_;
  std::map<zab::ServerId, Stream> streams_;
};

class IncomingSnapshot {
 public:
  IncomingSnapshot(storage::Env& env, StorageLayout layout)
      : env_(env), layout_(std::move(layout)) {}

  // A streamed Snap arrived (a stream under way is abandoned): its state is
  // staged from the SnapChunks that follow.
  Status begin(const zab::Message& snap);
  // A SnapChunk. Returns the Snap to step into the core when this was the
  // last chunk of the stream under way; nothing otherwise (also for a chunk
  // of no stream under way, which is dropped).
  StatusOr<std::optional<zab::Message>> chunk(const zab::Message& message, std::string_view bytes);
  // Whether the state of a Snap at `zxid` is whole on disk, waiting for the
  // core's install.
  bool received(zab::Zxid zxid) const { return done_ && snap_ && snap_->zxid == zxid; }
  // For install: seals the staged file (durable in the staging directory)
  // and returns its payload, viewed in the file; the view lives until
  // abandon() or the next begin().
  StatusOr<std::string_view> seal();
  // Forgets the stream and removes its unsealed file.
  void abandon();

 private:
  storage::Env& env_;
  StorageLayout layout_;
  std::optional<zab::Message> snap_;
  std::unique_ptr<storage::SnapshotWriter> writer_;
  std::optional<storage::Snapshot> sealed_;
  bool done_ = false;
};

}  // namespace zkd::server
