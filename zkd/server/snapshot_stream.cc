// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/snapshot_stream.h"

#include <utility>

#include "zkd/log/log.h"
#include "zkd/server/snapshot_install.h"

namespace zkd::server {

namespace {

zab::Message chunk_message(const zab::Message& snap) {
  zab::Message m;
  m.type = zab::MsgType::kSnapChunk;
  m.from = snap.from;
  m.to = snap.to;
  m.epoch = snap.epoch;
  m.zxid = snap.zxid;
  return m;
}

}  // namespace

void OutgoingSnapshots::send(zab::Message message, const tree::Database& db) {
  const zab::ServerId to = message.to;
  if (message.type == zab::MsgType::kSnap) {
    // A new handshake with this learner: what the last one held is moot.
    streams_.erase(to);
    Stream& stream = streams_[to];
    stream.cursor = db.begin_snapshot();
    stream.snap = message;
    net::log_info("streaming a snapshot at ", net::hex(message.zxid), " to server ", to);
    send_(std::move(message), std::string());
    return;
  }
  auto it = streams_.find(to);
  if (it != streams_.end()) {
    it->second.held.push_back(std::move(message));
    return;
  }
  send_(std::move(message), std::string());
}

bool OutgoingSnapshots::advance(Stream& stream) {
  const zab::ServerId to = stream.snap.to;
  size_t walked = 0;
  while (walked < limits_.nodes_per_pump && queued_(to) < limits_.queued_bytes) {
    std::string chunk = stream.cursor->next_chunk(limits_.chunk_nodes);
    if (chunk.empty()) return true;
    walked += limits_.chunk_nodes;
    stream.bytes += chunk.size();
    send_(chunk_message(stream.snap), std::move(chunk));
  }
  return false;
}

void OutgoingSnapshots::pump(const tree::Database& db) {
  for (auto it = streams_.begin(); it != streams_.end();) {
    Stream& stream = it->second;
    if (!advance(stream)) {
      ++it;
      continue;
    }
    net::log_info("streamed a snapshot at ", net::hex(stream.snap.zxid), " to server ",
                  stream.snap.to, ": ", stream.bytes, " bytes, walked up to ",
                  net::hex(db.last_zxid()));
    send_(chunk_message(stream.snap), std::string());
    std::deque<zab::Message> held = std::move(stream.held);
    it = streams_.erase(it);
    for (zab::Message& m : held) send_(std::move(m), std::string());
  }
}

void OutgoingSnapshots::drop(zab::ServerId peer) { streams_.erase(peer); }

Status IncomingSnapshot::begin(const zab::Message& snap) {
  abandon();
  if (Status s = begin_staging(env_, layout_); !s.ok()) return s;
  auto writer = storage::SnapshotWriter::create(env_, staging_dir(layout_), snap.zxid);
  if (!writer.ok()) return writer.status();
  writer_ = std::move(*writer);
  snap_ = snap;
  return Status();
}

StatusOr<std::optional<zab::Message>> IncomingSnapshot::chunk(const zab::Message& message,
                                                              std::string_view bytes) {
  if (!snap_ || done_ || message.zxid != snap_->zxid || message.from != snap_->from) {
    return std::optional<zab::Message>();
  }
  if (!bytes.empty()) {
    if (Status s = writer_->append(bytes); !s.ok()) return s;
    return std::optional<zab::Message>();
  }
  done_ = true;
  return std::optional<zab::Message>(*snap_);
}

StatusOr<std::string_view> IncomingSnapshot::seal() {
  if (!sealed_) {
    if (!done_) return Status::error("the streamed snapshot is not whole");
    if (Status s = writer_->finish(); !s.ok()) return s;
    writer_.reset();
    auto read = storage::read_snapshot_file(
        env_, staging_dir(layout_) + "/" + storage::snapshot_name(snap_->zxid));
    if (!read.ok()) return read.status();
    sealed_ = std::move(*read);
  }
  return sealed_->payload;
}

void IncomingSnapshot::abandon() {
  if (writer_) writer_->abandon();
  writer_.reset();
  if (sealed_) {
    // Sealed but not installed (the install failed): it must not be taken
    // for an interrupted install at the next start.
    const std::string path = staging_dir(layout_) + "/" + sealed_->name;
    sealed_.reset();
    if (env_.file_exists(path)) (void)env_.remove_file(path);
  }
  snap_.reset();
  done_ = false;
}

}  // namespace zkd::server
