// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/server.h"

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <random>
#include <utility>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"
#include "zkd/net/log.h"
#include "zkd/server/authentication.h"
#include "zkd/server/client_frames.h"
#include "zkd/server/database_options.h"
#include "zkd/server/replication.h"

namespace zkd::server {

namespace asio = boost::asio;
using net::hex;
using net::log_info;
using net::log_warn;

std::string peer_ip_id(const net::ClientConnection& connection) {
  const asio::ip::address address = connection.remote().address();
  if (address.is_v6()) return ipv6_host_address(address.to_v6().to_bytes());
  return address.to_string();
}

Server::Server(asio::io_context& io, ServerConfig config, storage::Env& env)
    : io_(io),
      config_(std::move(config)),
      whitelist_(config_.four_letter_whitelist),
      db_(database_options(config_)),
      tracker_(config_.tick_time_ms),
      session_ids_(config_.replicated() ? static_cast<uint8_t>(config_.my_id) : 1,
                   steady_clock_ms()),
      passwords_(SessionPasswords::with_random_key()),
      tick_timer_(io),
      env_(env),
      layout_(storage_layout(config_)),
      snapshots_(io, env_, db_, snapshot_options(config_, std::random_device{}()),
                 [this] { log_->roll(); }),
      containers_(config_),
      container_timer_(io),
      view_(StatusView::Sources{.config = config_,
                                .db = db_,
                                .clients = clients_,
                                .tracker = tracker_,
                                .snapshots = snapshots_,
                                .stats = stats_,
                                .writes_pending = [this] { return pipeline_.writes_pending(); },
                                .client_port = [this] { return endpoint().port(); },
                                .replica = [this]() -> const ReplicaHost* {
                                  return replicated() ? &replication_->host : nullptr;
                                }}) {
  stats_.started_steady_ms = steady_clock_ms();
  read_gate_ = std::make_shared<net::ReadGate>([this] { return over_outstanding_limit(); });
  listener_ = std::make_shared<net::ClientListener>(io_, *this, config_.max_client_cnxns,
                                                    connection_options());
}

net::ConnectionOptions Server::connection_options() const {
  net::ConnectionOptions options;
  options.max_frame = config_.jute_max_buffer;
  options.read_gate = read_gate_;
  return options;
}

bool Server::over_outstanding_limit() const {
  // Apache throttles on the requests in its processor pipeline; in zkd those
  // are the writes waiting to be committed (mntr's zk_outstanding_requests).
  return pipeline_.writes_pending() >= static_cast<size_t>(config_.global_outstanding_limit);
}

std::optional<asio::ip::tcp::endpoint> Server::admin_endpoint() const {
  return admin_ ? admin_->admin_endpoint() : std::nullopt;
}

std::optional<asio::ip::tcp::endpoint> Server::metrics_endpoint() const {
  return admin_ ? admin_->metrics_endpoint() : std::nullopt;
}

Server::~Server() { stop(); }

storage::Status Server::open_storage() {
  std::vector<storage::LogRecord> records;
  auto recovered = recover(env_, layout_, db_, config_.replicated() ? &records : nullptr);
  if (!recovered.ok()) return recovered.status();
  for (const auto& why : recovered->skipped_snapshots) {
    log_warn("skipped snapshot ", why);
  }
  if (!recovered->repaired.empty()) log_warn("txn log repaired: ", recovered->repaired);
  if (recovered->from_snapshot) {
    log_info("loaded ", layout_.snap_dir, "/", recovered->snapshot_name, " in ",
             recovered->snapshot_ms, " ms and replayed ", recovered->replayed, " txns from ",
             layout_.log_dir, " in ", recovered->log_ms, " ms; last zxid ", hex(db_.last_zxid()));
  } else {
    log_info("no snapshot in ", layout_.snap_dir, "; replayed ", recovered->replayed, " txns from ",
             layout_.log_dir, " in ", recovered->log_ms, " ms; last zxid ", hex(db_.last_zxid()));
    // Like Apache's initial snapshot.0: recovery then always starts from one.
    if (auto s = write_snapshot_now(env_, layout_.snap_dir, db_); !s.ok()) return s;
  }
  if (config_.replicated() && !env_.file_exists(layout_.snap_dir + "/session.key")) {
    // Every replica must derive the same passwords; see ensemble_session_key().
    passwords_ = SessionPasswords(ensemble_session_key(config_));
  } else {
    auto key = load_or_create_session_key(env_, layout_.snap_dir);
    if (!key.ok()) return key.status();
    passwords_ = SessionPasswords(*key);
  }

  last_prepared_zxid_ = std::max(db_.last_zxid(), recovered->tail.last_zxid);
  durable_zxid_ = last_prepared_zxid_;
  storage::LogOptions options;
  options.dir = layout_.log_dir;
  options.preallocate = static_cast<uint64_t>(config_.pre_alloc_size_kb) * 1024;
  options.force_sync = config_.force_sync;
  if (!config_.force_sync) {
    log_warn("forceSync=no: the txn log is never fsynced; acknowledged writes MAY BE LOST if ",
             "the machine loses power or crashes");
  }
  auto writer = storage::TxnLogWriter::open(env_, options, recovered->tail);
  if (!writer.ok()) return writer.status();
  log_ = std::make_unique<LogThread>(std::move(*writer), [this](const LogBatch& batch) {
    asio::post(io_, [this, batch] { on_log_batch(batch); });
  });
  snapshots_.open();
  if (config_.replicated()) {
    if (auto status = open_replica(std::move(records), recovered->snapshot_zxid); !status.ok())
      return status;
  }

  // Restored sessions get their whole timeout from now (Apache): a client
  // that reconnects in time keeps its session and ephemerals.
  touch_all_sessions();
  if (!db_.sessions().empty()) {
    log_info("restored ", db_.sessions().size(), " sessions; each expires unless resumed within ",
             "its timeout");
  }
  return {};
}

boost::system::error_code Server::start() {
  asio::ip::tcp::endpoint endpoint(asio::ip::tcp::v6(), config_.client_port);
  if (!config_.client_port_address.empty()) {
    boost::system::error_code ec;
    auto address = asio::ip::make_address(config_.client_port_address, ec);
    if (ec) return ec;
    endpoint = asio::ip::tcp::endpoint(address, config_.client_port);
  }
  auto ec = listener_->listen(endpoint);
  if (ec && config_.client_port_address.empty()) {
    // No IPv6 on this host: fall back to every IPv4 address.
    endpoint = asio::ip::tcp::endpoint(asio::ip::tcp::v4(), config_.client_port);
    listener_ = std::make_shared<net::ClientListener>(io_, *this, config_.max_client_cnxns,
                                                      connection_options());
    ec = listener_->listen(endpoint);
  }
  if (ec) return ec;
  if (replicated()) {
    if (auto replica_ec = start_replica()) return replica_ec;
  }
  listener_->start();
  admin_ = std::make_unique<admin::AdminEndpoints>(io_, view_, config_);
  admin_->start();
  schedule_tick();
  snapshots_.start();
  schedule_container_check();
  log_info("serving clients on ", listener_->local_endpoint(), " (tickTime ", config_.tick_time_ms,
           " ms, session timeout ", config_.min_session_timeout_ms, "..",
           config_.max_session_timeout_ms, " ms)");
  return {};
}

asio::ip::tcp::endpoint Server::endpoint() const { return listener_->local_endpoint(); }

bool Server::serving() const { return view_.serving(); }

std::string Server::four_letter_word(net::ClientConnection& /*connection*/, std::string_view word,
                                     std::string_view argument) {
  if (!whitelist_.allows(word)) return not_whitelisted_message(word);
  return view_.four_letter_word(word, argument);
}

void Server::stop() {
  if (stopped_) return;
  stopped_ = true;
  listener_->stop();
  if (admin_) admin_->stop();
  tick_timer_.cancel();
  container_timer_.cancel();
  if (replicated()) stop_replica();
  close_all_clients();
  // What was handed to the log becomes durable (and is replayed at the next
  // start) but is not applied or answered any more.
  if (log_) log_->stop();
  snapshots_.stop();
  if (on_stop_) std::exchange(on_stop_, nullptr)();
}

void Server::close_all_clients() {
  // Copy: close() does not call back synchronously, but keep iteration safe.
  std::vector<std::shared_ptr<net::ClientConnection>> open;
  for (auto& [id, client] : clients_) {
    client.phase = ClientState::Phase::kClosing;
    open.push_back(client.connection);
  }
  for (auto& c : open) c->close();
}

void Server::opened(const std::shared_ptr<net::ClientConnection>& connection) {
  ClientState state;
  state.connection = connection;
  state.opened_wall_ms = wall_clock_ms();
  state.auth.add({std::string(tree::kIpScheme), peer_ip_id(*connection)});
  clients_.emplace(connection->id(), std::move(state));
}

void Server::closed(net::ClientConnection& connection) {
  auto it = clients_.find(connection.id());
  if (it == clients_.end()) return;
  pipeline_.forget(connection.id());
  db_.remove_watcher(connection.id());
  SessionId session = it->second.session_id;
  if (session != 0) {
    auto owner = session_owner_.find(session);
    if (owner != session_owner_.end() && owner->second == connection.id()) {
      session_owner_.erase(owner);
      if (tracker_.contains(session)) {
        log_info("connection from ", connection.remote_text(), " for session ", hex(session),
                 " closed; the session lives until it times out");
      }
    }
  }
  clients_.erase(it);
}

void Server::frame(net::ClientConnection& connection, std::string_view payload) {
  auto it = clients_.find(connection.id());
  if (it == clients_.end()) {
    connection.close();
    return;
  }
  ClientState& client = it->second;
  ++stats_.packets_received;
  switch (client.phase) {
    case ClientState::Phase::kHandshake:
      if (!serving() || diverged()) {
        // Apache: "ZooKeeperServer not running"; the client tries another server.
        log_info("closing connection from ", connection.remote_text(),
                 ": this replica is not serving (",
                 diverged() ? "its tree diverged from its leader's" : "no quorum", ")");
        client.phase = ClientState::Phase::kClosing;
        connection.close();
        break;
      }
      handle_connect(client, payload);
      break;
    case ClientState::Phase::kConnecting:
      // Apache stops reading until the session is settled: keep the frame.
      pipeline_.defer(connection.id(), PendingRequest{std::string(payload), steady_clock_ms()});
      break;
    case ClientState::Phase::kEstablished:
      if (!client.close_requested) {
        handle_request(client, payload, Arrival::kNew, steady_clock_ms());
      }
      break;
    case ClientState::Phase::kClosing:
      break;
  }
}

void Server::handle_connect(ClientState& client, std::string_view payload) {
  auto& conn = *client.connection;
  zk::wire::ConnectRequest request;
  if (!zk::wire::decode(payload, request)) {
    log_warn("closing connection from ", conn.remote_text(), ": malformed ConnectRequest");
    conn.close();
    return;
  }
  if (request.last_zxid_seen > db_.last_zxid()) {
    log_info("refusing connection from ", conn.remote_text(), ": client has seen zxid ",
             hex(request.last_zxid_seen), ", this server only ", hex(db_.last_zxid()));
    conn.close();
    return;
  }
  int32_t timeout = std::clamp(request.timeout_ms, config_.min_session_timeout_ms,
                               config_.max_session_timeout_ms);
  zk::wire::ConnectResponse response;
  response.read_only = false;

  if (request.session_id == 0) {
    SessionId session = session_ids_.next();
    // Ids restored from disk were drawn by an earlier process.
    while (db_.session_exists(session)) session = session_ids_.next();
    WriteRequest create;
    create.kind = WriteRequest::Kind::kCreateSession;
    create.session = session;
    create.timeout_ms = timeout;
    PendingWrite write;
    write.kind = PendingWrite::Kind::kCreateSession;
    write.op = zk::wire::OpCode::kCreateSession;
    write.started_ms = steady_clock_ms();
    client.session_id = session;
    client.timeout_ms = timeout;
    client.connect_has_read_only = request.has_read_only;
    client.phase = ClientState::Phase::kConnecting;
    submit_write(conn.id(), std::move(write), create);
    return;
  } else {
    SessionId session = request.session_id;
    bool alive = tracker_.contains(session) && db_.session_exists(session);
    if (!alive || !passwords_.matches(session, request.passwd)) {
      log_info("refusing to resume session ", hex(session), " from ", conn.remote_text(), ": ",
               alive ? "wrong password" : "unknown or expired session");
      response.timeout_ms = 0;
      response.session_id = 0;
      response.passwd = std::string(SessionPasswords::kPasswordSize, '\0');
      send(client, connect_response_frame(response, request.has_read_only));
      client.phase = ClientState::Phase::kClosing;
      conn.close_after_flush();
      return;
    }
    auto owner = session_owner_.find(session);
    if (owner != session_owner_.end() && owner->second != conn.id()) {
      auto other = clients_.find(owner->second);
      if (other != clients_.end()) {
        log_info("session ", hex(session), " moves from ", other->second.connection->remote_text(),
                 " to ", conn.remote_text(), "; closing the old connection");
        other->second.phase = ClientState::Phase::kClosing;
        other->second.connection->close();
      }
    }
    tracker_.touch(session, timeout, steady_clock_ms());
    if (replicated()) replication_->touched_sessions[session] = timeout;
    response.timeout_ms = timeout;
    response.session_id = session;
    response.passwd = passwords_.password(session);
    client.session_id = session;
    log_info("session ", hex(session), " resumed by ", conn.remote_text(), ", timeout ", timeout,
             " ms");
  }
  client.timeout_ms = timeout;
  client.phase = ClientState::Phase::kEstablished;
  session_owner_[client.session_id] = conn.id();
  conn.mark_established();
  send(client, connect_response_frame(response, request.has_read_only));
}

void Server::complete_create_session(ClientState* client, const PendingWrite& write) {
  SessionId session = write.txn.header.session_id;
  const auto& body = std::get<tree::CreateSessionTxn>(write.txn.body);
  // Tracked even when its client left meanwhile: it then expires as usual.
  tracker_.touch(session, body.timeout_ms, steady_clock_ms());
  if (client == nullptr || client->phase != ClientState::Phase::kConnecting) return;
  auto& conn = *client->connection;
  zk::wire::ConnectResponse response;
  response.read_only = false;
  response.timeout_ms = body.timeout_ms;
  response.session_id = session;
  response.passwd = passwords_.password(session);
  client->last_operation = "SESS";
  client->last_cxid = 0;
  client->last_zxid = write.txn.header.zxid;
  client->last_response_wall_ms = wall_clock_ms();
  client->phase = ClientState::Phase::kEstablished;
  session_owner_[session] = conn.id();
  conn.mark_established();
  send(*client, connect_response_frame(response, client->connect_has_read_only));
  log_info("session ", hex(session), " created for ", conn.remote_text(), ", timeout ",
           body.timeout_ms, " ms");
}

void Server::touch_all_sessions() {
  const int64_t now = steady_clock_ms();
  for (SessionId session : db_.sessions()) {
    tracker_.touch(session, db_.session_timeout(session).value_or(config_.max_session_timeout_ms),
                   now);
  }
}

void Server::schedule_tick() {
  if (stopped_) return;
  tick_timer_.expires_after(std::chrono::milliseconds(config_.tick_time_ms));
  tick_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled by stop()
    expire_due_sessions();
    schedule_tick();
  });
}

void Server::expire_due_sessions() {
  // In an ensemble only the serving leader decides expiry.
  if (replicated() && !(serving() && replication_->host.status().role == zab::Role::kLeading))
    return;
  for (SessionId session : tracker_.expire(steady_clock_ms())) {
    log_info("session ", hex(session), " expired");
    end_session(session);
  }
}

void Server::schedule_container_check() {
  if (stopped_) return;
  container_timer_.expires_after(containers_.check_interval());
  container_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled by stop()
    check_containers();
    schedule_container_check();
  });
}

void Server::check_containers() {
  // Only the serving leader (or a standalone server) deletes, as Apache.
  if (replicated() && !(serving() && replication_->host.status().role == zab::Role::kLeading))
    return;
  std::vector<std::string> due = containers_.admit(
      db_.sweep_candidates(wall_clock_ms(), containers_.max_never_used_ms()), steady_clock_ms());
  for (std::string& path : due) {
    log_info("deleting container or expired TTL node ", path);
    WriteRequest request;  // Apache's: session 0, the path's bytes as the body
    request.op = zk::wire::OpCode::kDeleteContainer;
    request.body = std::move(path);
    PendingWrite write;
    write.kind = PendingWrite::Kind::kExpiry;
    write.op = zk::wire::OpCode::kDeleteContainer;
    write.started_ms = steady_clock_ms();
    submit_write(Pipeline::kNoConnection, std::move(write), request);
  }
}

void Server::end_session(SessionId session) {
  tracker_.remove(session);
  // The session's own connection gets no frame (§2.4): close it before the
  // closeSession txn fires watches.
  auto owner = session_owner_.find(session);
  if (owner != session_owner_.end()) {
    auto client = clients_.find(owner->second);
    if (client != clients_.end()) {
      client->second.phase = ClientState::Phase::kClosing;
      client->second.connection->close();
    }
    session_owner_.erase(owner);
  }
  if (db_.session_exists(session)) {
    WriteRequest close;
    close.kind = WriteRequest::Kind::kCloseSession;
    close.session = session;
    PendingWrite write;
    write.kind = PendingWrite::Kind::kExpiry;
    write.op = zk::wire::OpCode::kCloseSession;
    write.started_ms = steady_clock_ms();
    submit_write(Pipeline::kNoConnection, std::move(write), close);
  }
}

}  // namespace zkd::server
