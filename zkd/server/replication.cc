// SPDX-License-Identifier: Apache-2.0
// Server as one replica of a Zab ensemble: carries out the core's Ready
// batches in the order docs/zab.md requires, runs the peer transport and the
// core's timer, forwards or proposes client writes, and answers this
// server's clients from the committed txns.
#include "zkd/server/replication.h"

#include <algorithm>
#include <random>
#include <utility>

#include "libzk/wire/jute.h"
#include "zkd/failpoint/points.h"
#include "zkd/net/log.h"
#include "zkd/server/database_options.h"
#include "zkd/server/epoch_files.h"
#include "zkd/storage/snapshot_file.h"

namespace zkd::server {

namespace asio = boost::asio;
using net::hex;
using net::log_error;
using net::log_info;
using net::log_warn;

namespace {

// Core ticks per tickTime.
constexpr int kTicksPerTick = 10;
// Apache's finalizeWait and the pace of vote resends.
constexpr std::chrono::milliseconds kElectionWait{200};
// Followers report their clients' sessions this often, in core ticks.
constexpr uint64_t kTouchReportTicks = kTicksPerTick / 2;
// A leader sends its tree digest once per this many applied txns.
constexpr uint64_t kDigestInterval = 64;

// Whether committed txn `h` is the forwarded write (kind, session, xid).
bool matches(WriteRequest::Kind kind, int64_t session, int32_t xid, const tree::TxnHeader& h) {
  using zk::wire::OpCode;
  if (h.session_id != session) return false;
  switch (kind) {
    case WriteRequest::Kind::kCreateSession:
      return h.type == OpCode::kCreateSession;
    case WriteRequest::Kind::kCloseSession:
      return h.type == OpCode::kCloseSession;
    case WriteRequest::Kind::kOp:
    case WriteRequest::Kind::kError:
    case WriteRequest::Kind::kTouch:
      break;
  }
  return h.cxid == xid && h.type != OpCode::kCreateSession && h.type != OpCode::kCloseSession;
}

std::string whole_snapshot(const tree::Database& db) {
  auto cursor = db.begin_snapshot();
  std::string out;
  for (std::string chunk = cursor->next_chunk(10000); !chunk.empty();
       chunk = cursor->next_chunk(10000)) {
    out += chunk;
  }
  return out;
}

}  // namespace

const char* replica_mode(zab::Role role) {
  switch (role) {
    case zab::Role::kLeading:
      return "leader";
    case zab::Role::kFollowing:
      return "follower";
    case zab::Role::kObserving:
      return "observer";
    case zab::Role::kLooking:
      break;
  }
  return "looking";
}

ReplicaTiming replica_timing(const ServerConfig& config) {
  ReplicaTiming t;
  t.tick = std::chrono::milliseconds(std::max(1, config.tick_time_ms / kTicksPerTick));
  const int per_tick = config.tick_time_ms / static_cast<int>(t.tick.count());
  t.config.id = config.my_id;
  for (const auto& [id, server] : config.quorum_servers) {
    (server.observer ? t.config.observers : t.config.voters).push_back(id);
  }
  const int election = static_cast<int>(
      std::max<int64_t>(1, kElectionWait.count() / static_cast<int64_t>(t.tick.count())));
  t.config.finalize_ticks = election;
  t.config.vote_resend_ticks = election;
  t.config.init_limit = std::max(1, config.init_limit.value_or(10) * per_tick);
  t.config.sync_limit = std::max(1, config.sync_limit.value_or(5) * per_tick);
  return t;
}

SessionPasswords::Key ensemble_session_key(const ServerConfig& config) {
  std::string servers;
  for (const auto& [id, server] : config.quorum_servers) {
    servers += std::to_string(id) + "=" + server.host + ":" + std::to_string(server.quorum_port) +
               ":" + std::to_string(server.election_port) + "\n";
  }
  constexpr SessionPasswords::Key kFixed = {0x7a6b2d656e73656dULL, 0x626c652d6b657921ULL};
  return {siphash24(kFixed, "0" + servers), siphash24(kFixed, "1" + servers)};
}

storage::Status Server::open_replica(std::vector<storage::LogRecord> records,
                                     int64_t snapshot_zxid) {
  auto epochs = read_epoch_files(env_, layout_.snap_dir);
  if (!epochs.ok()) return epochs.status();
  zab::Bootstrap boot;
  const int64_t last = records.empty() ? db_.last_zxid() : records.back().zxid;
  boot.hard_state.accepted_epoch = epochs->accepted_epoch;
  boot.hard_state.current_epoch = epochs->current_epoch;
  if (boot.hard_state.current_epoch == 0 && last != 0) {
    // Apache: a missing currentEpoch is the epoch of the last logged zxid.
    boot.hard_state.current_epoch = zab::epoch_of(last);
    boot.hard_state.accepted_epoch =
        std::max(boot.hard_state.accepted_epoch, boot.hard_state.current_epoch);
  }
  ReplicaTiming timing = replica_timing(config_);
  // The core keeps commit_window entries before the applied point for DIFF.
  const size_t keep = std::min(records.size(), timing.config.commit_window);
  const size_t first = records.size() - keep;
  boot.base = first == 0 ? snapshot_zxid : records[first - 1].zxid;
  for (size_t i = first; i < records.size(); ++i) {
    boot.entries.push_back(zab::Entry{records[i].zxid, std::move(records[i].txn)});
  }
  boot.applied = db_.last_zxid();
  boot.incarnation = static_cast<uint32_t>(std::random_device{}());
  if (auto why = zab::validate(timing.config); !why.empty()) {
    return storage::Status::error("ensemble configuration: " + why);
  }
  log_info("replica ", config_.my_id, " of ", timing.config.voters.size(), " voters; epochs ",
           boot.hard_state.accepted_epoch, "/", boot.hard_state.current_epoch, ", last zxid ",
           hex(last), ", core tick ", timing.tick.count(), " ms");
  replication_ = std::make_unique<Replication>(io_, std::move(timing), std::move(boot));
  return {};
}

boost::system::error_code Server::start_replica() {
  std::vector<net::PeerAddress> peers;
  for (const auto& [id, server] : config_.quorum_servers) {
    peers.push_back(net::PeerAddress{id, server.host, server.quorum_port});
  }
  replication_->transport = std::make_unique<net::PeerTransport>(
      io_, config_.my_id, std::move(peers),
      [this](net::PeerPacket packet) { on_peer_packet(std::move(packet)); });
  replication_->transport->on_link_down([this](zab::ServerId peer) {
    if (stopped_) return;
    replication_->core.link_down(peer);
    process_ready();
  });
  if (auto ec = replication_->transport->start()) return ec;
  process_ready();
  on_replica_tick();
  return {};
}

void Server::stop_replica() {
  replication_->tick_timer.cancel();
  if (replication_->transport) replication_->transport->stop();
}

bool Server::serving() const { return !replicated() || replication_->status.serving; }

bool Server::diverged() const { return replicated() && replication_->diverged; }

void Server::fail_replica(const std::string& why) {
  log_error(why, "; stopping (writes already acknowledged are safe on a quorum)");
  exit_status_ = kExitLogFailure;
  stop();
}

void Server::on_replica_tick() {
  if (stopped_) return;
  Replication& r = *replication_;
  r.core.tick();
  ++r.ticks;
  if (r.ticks % kTouchReportTicks == 0 && r.status.serving &&
      r.status.role != zab::Role::kLeading && !r.touched.empty()) {
    WriteRequest touch;
    touch.kind = WriteRequest::Kind::kTouch;
    touch.touches.assign(r.touched.begin(), r.touched.end());
    r.touched.clear();
    r.core.forward(encode_write_request(touch));
  }
  process_ready();
  r.tick_timer.expires_after(r.tick);
  r.tick_timer.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) on_replica_tick();
  });
}

void Server::on_peer_packet(net::PeerPacket packet) {
  if (stopped_) return;
  Replication& r = *replication_;
  if (packet.message.type == zab::MsgType::kSnap) {
    r.incoming_snapshots[packet.message.zxid] = std::move(packet.attachment);
  }
  r.core.step(packet.message);
  process_ready();
}

void Server::process_ready() {
  Replication& r = *replication_;
  if (r.in_ready) return;
  r.in_ready = true;
  while (!stopped_ && r.core.has_ready()) {
    zab::Ready ready = r.core.ready();
    carry_out_ready(ready);
    if (stopped_) break;
    r.core.advance();
    if (ready.install_snapshot) r.core.snapshot_installed(*ready.install_snapshot);
    // 7. forwarded writes, after advance(): their proposals go in the next Ready.
    for (const zab::Request& q : ready.requests) {
      auto request = decode_write_request(q.payload);
      if (!request) {
        log_warn("dropping an undecodable request forwarded by server ", q.from);
        continue;
      }
      propose_request(*request);
    }
  }
  r.in_ready = false;
  if (!stopped_) drain();
}

void Server::carry_out_ready(zab::Ready& ready) {
  Replication& r = *replication_;
  // 1. hard state, durably, before anything leaves.
  if (ready.hard_state) {
    auto status = write_epoch_files(
        env_, layout_.snap_dir,
        EpochFiles{ready.hard_state->accepted_epoch, ready.hard_state->current_epoch});
    if (!status.ok()) return fail_replica("cannot write the epoch files: " + status.message());
  }
  // 2. the leader's snapshot replaces state and log, durably.
  if (ready.install_snapshot) {
    const zab::Zxid zxid = *ready.install_snapshot;
    auto it = r.incoming_snapshots.find(zxid);
    if (it == r.incoming_snapshots.end()) {
      return fail_replica("the snapshot to install (" + hex(zxid) + ") never arrived");
    }
    tree::Database db(database_options(config_));
    if (auto err = db.load_snapshot(it->second); !err.empty()) {
      return fail_replica("the leader's snapshot " + hex(zxid) + " does not load: " + err);
    }
    r.incoming_snapshots.clear();
    snapshots_.abandon();
    // The log goes first: a crash in between leaves an older, consistent state.
    ++log_truncations_;
    storage::Status status = log_->truncate_after(0);
    if (status.ok()) {
      failpoint::kSnapLogCleared.hit();
      status = storage::remove_snapshots_after(env_, layout_.snap_dir, zxid - 1);
    }
    if (status.ok() && failpoint::kSnapBeforeWrite.fail()) {
      status = storage::Status::error(failpoint::kSnapBeforeWrite.error_message());
    }
    if (status.ok()) status = write_snapshot_now(env_, layout_.snap_dir, db);
    if (!status.ok()) return fail_replica("cannot install the snapshot: " + status.message());
    failpoint::kSnapInstalled.hit();
    db_ = std::move(db);
    r.digests.reset();
    last_prepared_zxid_ = durable_zxid_ = zxid;
    log_info("installed the leader's snapshot at ", hex(zxid));
  }
  // 3. truncation, durably; rebuild the state if it went past the cut.
  if (ready.truncate_after) {
    const zab::Zxid t = *ready.truncate_after;
    snapshots_.abandon();
    ++log_truncations_;
    storage::Status status;
    if (failpoint::kTruncBeforeCut.fail()) {
      status = storage::Status::error(failpoint::kTruncBeforeCut.error_message());
    }
    if (status.ok()) status = log_->truncate_after(t);
    if (status.ok()) {
      failpoint::kTruncLogCut.hit();
      status = storage::remove_snapshots_after(env_, layout_.snap_dir, t);
    }
    if (!status.ok()) return fail_replica("cannot truncate the txn log: " + status.message());
    last_prepared_zxid_ = std::min<int64_t>(last_prepared_zxid_, t);
    durable_zxid_ = std::min<int64_t>(durable_zxid_, t);
    if (db_.last_zxid() > t) {
      tree::Database rebuilt(database_options(config_));
      auto recovered = recover(env_, layout_, rebuilt);
      if (!recovered.ok()) {
        return fail_replica("cannot rebuild the state after truncation: " +
                            recovered.status().message());
      }
      db_ = std::move(rebuilt);
      r.digests.reset();
    }
    log_info("truncated the txn log after ", hex(t), "; state at ", hex(db_.last_zxid()));
  }
  // 4. append; the log thread reports durability (on_log_batch -> persisted).
  for (zab::Entry& e : ready.entries) {
    last_prepared_zxid_ = e.zxid;
    log_->append(e.zxid, std::move(e.payload));
    snapshots_.logged(last_prepared_zxid_);
  }
  // 5. apply, each txn's digest sent (leader) or compared (learner).
  for (const zab::Entry& e : ready.committed) {
    apply_committed(e);
    if (stopped_) return;
    exchange_digest(e.zxid);
  }
  // 6. send; a Snap carries the state right after step 5.
  for (zab::Message& m : ready.messages) {
    net::PeerPacket packet{std::move(m), {}};
    if (packet.message.type == zab::MsgType::kSnap) {
      packet.attachment = whole_snapshot(db_);
      log_info("sending a snapshot at ", hex(db_.last_zxid()), " (", packet.attachment.size(),
               " bytes) to server ", packet.message.to);
    }
    const bool ack_newleader = packet.message.type == zab::MsgType::kAckNewLeader;
    if (ack_newleader) failpoint::kAckNewLeaderBeforeSend.hit();
    r.transport->send(std::move(packet));
    if (ack_newleader) failpoint::kAckNewLeaderSent.hit();
  }
  // 8. syncs.
  for (uint64_t ticket : ready.syncs_done) ticket_done(ticket);
  // 9. status.
  if (ready.status) on_status(*ready.status);
  if (stopped_) return;
  // 10. the leader's digests.
  for (const auto& [zxid, digest] : ready.digests) {
    if (auto m = r.digests.leaders(zxid, digest)) digest_mismatch(*m);
  }
}

void Server::exchange_digest(zab::Zxid zxid) {
  Replication& r = *replication_;
  const uint64_t digest = db_.digest();
  if (r.status.role == zab::Role::kLeading) {
    if (++r.applied_since_digest < kDigestInterval) return;
    r.applied_since_digest = 0;
    r.core.send_digest(zxid, digest);
  } else if (auto m =
                 r.digests.applied(zxid, failpoint::kDigestCompare.fail() ? ~digest : digest)) {
    digest_mismatch(*m);
  }
}

void Server::digest_mismatch(const DigestCheck::Mismatch& m) {
  Replication& r = *replication_;
  ++digest_mismatches_;
  if (r.diverged) return;
  r.diverged = true;
  log_error("tree digest mismatch at zxid ", hex(m.zxid), ": this replica's is ", hex(m.ours),
            ", its leader's ", hex(m.leaders),
            ". Its tree has diverged from the leader's: it serves no client from now on and never "
            "leads (mntr: zk_digest_mismatches_count). Restore its data from a replica: stop it, "
            "move its version-2 aside, start it");
  drop_clients();
}

void Server::apply_committed(const zab::Entry& entry) {
  Replication& r = *replication_;
  tree::Txn txn;
  if (!tree::read_txn(entry.payload, txn) || txn.header.zxid != entry.zxid) {
    return fail_replica("committed txn " + hex(entry.zxid) + " does not decode");
  }
  const SessionId session = txn.header.session_id;
  const bool close = txn.header.type == zk::wire::OpCode::kCloseSession;
  if (close) {
    // The session's own connection gets no frame (§2.4): close it before the
    // txn fires watches, unless it asked for the close itself.
    auto owner = session_owner_.find(session);
    if (owner != session_owner_.end()) {
      ClientState* client = find_client(owner->second);
      if (client != nullptr && !client->close_requested) {
        client->phase = ClientState::Phase::kClosing;
        client->connection->close();
      }
      if (client == nullptr || !client->close_requested) session_owner_.erase(owner);
    }
    tracker_.remove(session);
    r.touched.erase(session);
  }
  tree::ApplyResult result = db_.apply(txn);
  deliver(result.notifications, txn.header.zxid);
  if (txn.header.type == zk::wire::OpCode::kCreateSession) {
    const auto& body = std::get<tree::CreateSessionTxn>(txn.body);
    tracker_.touch(session, body.timeout_ms, steady_clock_ms());
  }
  // Ours? Forwarded writes commit in the order this server sent them. Most
  // txns a follower applies are other servers' clients': their session has
  // nothing in flight here, and no scan is needed.
  auto& fwd = r.forwarded;
  if (!r.forwarded_sessions.contains(session)) return;
  auto it = std::find_if(fwd.begin(), fwd.end(), [&](const Replication::Forwarded& f) {
    return matches(f.kind, f.session, f.xid, txn.header);
  });
  if (it == fwd.end()) return;
  auto settle = [&r](const Replication::Forwarded& f) {
    auto count = r.forwarded_sessions.find(f.session);
    if (count != r.forwarded_sessions.end() && --count->second == 0) {
      r.forwarded_sessions.erase(count);
    }
  };
  for (auto lost = fwd.begin(); lost != it; ++lost) {
    settle(*lost);
    log_warn("write of session ", hex(lost->session), " xid ", lost->xid,
             " was not committed; closing its connection");
    r.completed[lost->ticket] = std::nullopt;
    ticket_done(lost->ticket);
  }
  settle(*it);
  r.completed[it->ticket] = std::make_pair(std::move(txn), std::move(result.response));
  ticket_done(it->ticket);
  fwd.erase(fwd.begin(), it + 1);
}

void Server::ticket_done(uint64_t ticket) {
  Replication& r = *replication_;
  if (ticket <= r.done_upto) return;
  r.done.insert(ticket);
  while (!r.done.empty() && *r.done.begin() == r.done_upto + 1) {
    r.done.erase(r.done.begin());
    ++r.done_upto;
  }
}

void Server::finish_replicated_write(net::ConnectionId connection, uint64_t ticket,
                                     PendingWrite& write) {
  Replication& r = *replication_;
  if (write.kind == PendingWrite::Kind::kSync) {
    finish_write(connection, write, tree::Response{});
    return;
  }
  auto it = r.completed.find(ticket);
  if (it == r.completed.end() || !it->second) {
    if (it != r.completed.end()) r.completed.erase(it);
    ClientState* client = find_client(connection);
    if (client != nullptr) {
      client->phase = ClientState::Phase::kClosing;
      client->connection->close();
    }
    return;
  }
  write.txn = std::move(it->second->first);
  tree::Response response = std::move(it->second->second);
  r.completed.erase(it);
  finish_write(connection, write, response);
}

void Server::replicate_write(net::ConnectionId connection, PendingWrite write,
                             const WriteRequest& request) {
  Replication& r = *replication_;
  if (!r.status.serving) {
    // The quorum was lost meanwhile; the client's connection is closing.
    if (ClientState* client = find_client(connection)) client->connection->close();
    return;
  }
  if (connection == Pipeline::kNoConnection) {
    // The leader's own txns (session expiry): nobody waits for them.
    propose_request(request);
    process_ready();
    return;
  }
  const uint64_t ticket = ++r.last_ticket;
  r.forwarded.push_back(Replication::Forwarded{ticket, request.session, request.xid, request.kind});
  ++r.forwarded_sessions[request.session];
  pipeline_.add_write(connection, static_cast<int64_t>(ticket), std::move(write));
  if (r.status.role == zab::Role::kLeading) {
    propose_request(request);
  } else if (auto err = r.core.forward(encode_write_request(request)); err != zab::Error::kOk) {
    log_warn("cannot forward a write to the leader: ", zab::to_string(err));
  }
  process_ready();
}

void Server::replicate_sync(ClientState& client, std::string payload, int64_t started_ms) {
  Replication& r = *replication_;
  const uint64_t ticket = ++r.last_ticket;
  PendingWrite write;
  write.kind = PendingWrite::Kind::kSync;
  write.op = zk::wire::OpCode::kSync;
  write.payload = std::move(payload);
  write.started_ms = started_ms;
  pipeline_.add_write(client.connection->id(), static_cast<int64_t>(ticket), std::move(write));
  if (auto err = r.core.sync(ticket); err != zab::Error::kOk) {
    log_warn("cannot start a sync: ", zab::to_string(err));
  }
  process_ready();
}

void Server::propose_request(const WriteRequest& request) {
  Replication& r = *replication_;
  if (r.status.role != zab::Role::kLeading || !r.status.serving) return;
  if (request.kind == WriteRequest::Kind::kTouch) {
    const int64_t now = steady_clock_ms();
    for (const auto& [session, timeout] : request.touches) {
      if (db_.session_exists(session)) tracker_.touch(session, timeout, now);
    }
    return;
  }
  const zab::Zxid last = r.core.last_zxid();
  const zab::Epoch epoch = r.status.epoch;
  // The zxid propose() will assign: the next counter of the leader's epoch.
  const zab::Zxid next = zab::epoch_of(last) == epoch ? last + 1 : zab::make_zxid(epoch, 1);
  if (zab::epoch_of(last) != epoch && db_.last_zxid() != last) {
    log_warn("dropping a write: the new epoch's history is not applied yet");
    return;
  }
  tree::Txn txn = prepare_write(db_, request, next, wall_clock_ms());
  std::string bytes;
  zk::wire::Writer writer(bytes);
  tree::write_txn(writer, txn);
  const zab::Proposed proposed = r.core.propose(std::move(bytes));
  if (!proposed.ok()) {
    db_.discard_pending();
    log_warn("cannot propose: ", zab::to_string(proposed.error));
  }
}

void Server::drop_clients() {
  // Apache shuts its ZooKeeperServer down: every client reconnects
  // (possibly elsewhere) and retries; writes in flight are lost.
  Replication& r = *replication_;
  close_all_clients();
  pipeline_.clear();
  r.forwarded.clear();
  r.forwarded_sessions.clear();
  r.completed.clear();
  r.done.clear();
  r.done_upto = r.last_ticket;
  r.touched.clear();
}

void Server::on_status(const zab::Status& status) {
  Replication& r = *replication_;
  const zab::Status old = r.status;
  r.status = status;
  if (status.role != zab::Role::kLeading || !status.serving) db_.discard_pending();
  if (status.role == zab::Role::kLeading && r.diverged) {
    return fail_replica(
        "this replica's tree diverged from its leader's (a tree digest mismatch) "
        "and it must not lead");
  }
  if (old.serving && !(status.serving && status.leader == old.leader)) drop_clients();
  if (status.serving && status.role == zab::Role::kLeading && !old.serving) {
    // Every session gets its whole timeout from now, as after a restart.
    touch_all_sessions();
  }
  log_info("now ", replica_mode(status.role), status.serving ? " (serving)" : "", ", leader ",
           status.leader, ", epoch ", status.epoch, ", last zxid ", hex(r.core.last_zxid()));
}

}  // namespace zkd::server
