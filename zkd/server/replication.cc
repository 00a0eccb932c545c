// SPDX-License-Identifier: Apache-2.0
// Server as one replica of a Zab ensemble: runs the replica host
// (replica_host.cc) with the peer transport and the core's timer, hands it
// this server's client writes and syncs, and answers them from the txns it
// applies.
#include "zkd/server/replication.h"

#include <algorithm>
#include <random>
#include <utility>

#include "zkd/net/log.h"
#include "zkd/server/database_options.h"

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

}  // namespace

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
  ReplicaTiming timing = replica_timing(config_);
  if (auto why = zab::validate(timing.config); !why.empty()) {
    return storage::Status::config("ensemble configuration: " + why);
  }
  const int64_t last = records.empty() ? db_.last_zxid() : records.back().zxid;
  auto boot =
      replica_bootstrap(env_, layout_.snap_dir, std::move(records), snapshot_zxid, db_.last_zxid(),
                        timing.config.commit_window, static_cast<uint32_t>(std::random_device{}()));
  if (!boot.ok()) return boot.status();
  log_info("replica ", config_.my_id, " of ", timing.config.voters.size(), " voters; epochs ",
           boot->hard_state.accepted_epoch, "/", boot->hard_state.current_epoch, ", last zxid ",
           hex(last), ", core tick ", timing.tick.count(), " ms");
  replication_ = std::make_unique<Replication>(*this, std::move(timing), std::move(*boot));
  return {};
}

Server::Replication::Replication(Server& server, ReplicaTiming timing, zab::Bootstrap boot)
    : server(server),
      tick(timing.tick),
      host(std::move(timing.config), std::move(boot),
           ReplicaHost::Storage{server.env_, server.layout_, database_options(server.config_)},
           server.db_, *server.log_, *this),
      tick_timer(server.io_) {}

boost::system::error_code Server::start_replica() {
  std::vector<net::PeerAddress> peers;
  for (const auto& [id, server] : config_.quorum_servers) {
    peers.push_back(net::PeerAddress{id, server.host, server.quorum_port});
  }
  Replication& r = *replication_;
  r.transport = std::make_unique<net::PeerTransport>(
      io_, config_.my_id, std::move(peers), [&r](net::PeerPacket packet) {
        r.host.receive(std::move(packet.message), std::move(packet.attachment));
      });
  r.transport->on_link_down([&r](zab::ServerId peer) { r.host.link_down(peer); });
  if (auto ec = r.transport->start()) return ec;
  r.host.start();
  on_replica_tick();
  return {};
}

void Server::stop_replica() {
  replication_->host.stop();
  replication_->tick_timer.cancel();
  if (replication_->transport) replication_->transport->stop();
}

bool Server::diverged() const { return replicated() && replication_->host.diverged(); }

void Server::fail_replica(const std::string& why) {
  log_error(why, "; stopping (writes already acknowledged are safe on a quorum)");
  exit_status_ = kExitLogFailure;
  stop();
}

void Server::on_replica_tick() {
  if (stopped_) return;
  Replication& r = *replication_;
  ++r.ticks;
  const zab::Status& status = r.host.status();
  if (r.ticks % kTouchReportTicks == 0 && status.serving && status.role != zab::Role::kLeading &&
      !r.touched_sessions.empty()) {
    WriteRequest touch;
    touch.kind = WriteRequest::Kind::kTouch;
    touch.touches.assign(r.touched_sessions.begin(), r.touched_sessions.end());
    r.touched_sessions.clear();
    r.host.write(touch);
  }
  r.host.tick();
  r.tick_timer.expires_after(r.tick);
  r.tick_timer.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) on_replica_tick();
  });
}

void Server::finish_replicated_write(net::ConnectionId connection, uint64_t ticket,
                                     PendingWrite& write) {
  if (write.kind == PendingWrite::Kind::kSync) {
    finish_write(connection, write, tree::Response{});
    return;
  }
  auto outcome = replication_->writes.take(ticket);
  if (!outcome) {
    // Lost (not committed before the leader changed): the client retries.
    ClientState* client = find_client(connection);
    if (client != nullptr) {
      client->phase = ClientState::Phase::kClosing;
      client->connection->close();
    }
    return;
  }
  write.txn = std::move(outcome->first);
  finish_write(connection, write, outcome->second);
}

void Server::replicate_write(net::ConnectionId connection, PendingWrite write,
                             const WriteRequest& request) {
  Replication& r = *replication_;
  if (!r.host.status().serving) {
    // The quorum was lost meanwhile; the client's connection is closing.
    if (ClientState* client = find_client(connection)) client->connection->close();
    return;
  }
  if (connection != Pipeline::kNoConnection) {
    // Not the leader's own txns (session expiry), which nobody waits for.
    const uint64_t ticket = r.writes.add_write(request);
    pipeline_.add_write(connection, static_cast<int64_t>(ticket), std::move(write));
  }
  r.host.write(request);
}

void Server::replicate_sync(ClientState& client, std::string payload, int64_t started_ms) {
  Replication& r = *replication_;
  const uint64_t ticket = r.writes.add_sync();
  PendingWrite write;
  write.kind = PendingWrite::Kind::kSync;
  write.op = zk::wire::OpCode::kSync;
  write.payload = std::move(payload);
  write.started_ms = started_ms;
  pipeline_.add_write(client.connection->id(), static_cast<int64_t>(ticket), std::move(write));
  r.host.sync(ticket);
}

void Server::drop_clients() {
  // Apache shuts its ZooKeeperServer down: every client reconnects
  // (possibly elsewhere) and retries; writes in flight are lost.
  close_all_clients();
  pipeline_.clear();
  replication_->writes.clear();
  replication_->touched_sessions.clear();
}

// --- what the replica host hands back ---

void Server::Replication::send(zab::Message message, std::string attachment) {
  transport->send(net::PeerPacket{std::move(message), std::move(attachment)});
}

void Server::Replication::logged(int64_t zxid) { server.snapshots_.logged(zxid); }

void Server::Replication::abandon_snapshot() { server.snapshots_.abandon(); }

void Server::Replication::applying(const tree::Txn& txn) {
  if (txn.header.type != zk::wire::OpCode::kCloseSession) return;
  const SessionId session = txn.header.session_id;
  // The session's own connection gets no frame (§2.4): close it before the
  // txn fires watches, unless it asked for the close itself.
  auto owner = server.session_owner_.find(session);
  if (owner != server.session_owner_.end()) {
    ClientState* client = server.find_client(owner->second);
    if (client != nullptr && !client->close_requested) {
      client->phase = ClientState::Phase::kClosing;
      client->connection->close();
    }
    if (client == nullptr || !client->close_requested) server.session_owner_.erase(owner);
  }
  server.tracker_.remove(session);
  touched_sessions.erase(session);
}

void Server::Replication::applied(tree::Txn txn, tree::ApplyResult result) {
  server.deliver(result.notifications, txn.header.zxid);
  if (txn.header.type == zk::wire::OpCode::kCreateSession) {
    const auto& body = std::get<tree::CreateSessionTxn>(txn.body);
    server.tracker_.touch(txn.header.session_id, body.timeout_ms, steady_clock_ms());
  }
  writes.applied(txn, result.response);
}

void Server::Replication::touched(const std::vector<std::pair<int64_t, int32_t>>& touches) {
  const int64_t now = steady_clock_ms();
  for (const auto& [session, timeout] : touches) {
    if (server.db_.session_exists(session)) server.tracker_.touch(session, timeout, now);
  }
}

void Server::Replication::status_changed(const zab::Status& old, const zab::Status& now) {
  if (old.serving && !(now.serving && now.leader == old.leader)) server.drop_clients();
  if (now.serving && now.role == zab::Role::kLeading && !old.serving) {
    // Every session gets its whole timeout from now, as after a restart.
    server.touch_all_sessions();
  }
  log_info("now ", replica_mode(now.role), now.serving ? " (serving)" : "", ", leader ", now.leader,
           ", epoch ", now.epoch, ", last zxid ", hex(host.core().last_zxid()));
}

void Server::Replication::diverged() { server.drop_clients(); }

void Server::Replication::failed(const std::string& why) { server.fail_replica(why); }

void Server::Replication::settled() {
  if (!server.stopped_) server.drain();
}

int64_t Server::Replication::wall_clock_ms() { return zkd::server::wall_clock_ms(); }

}  // namespace zkd::server
