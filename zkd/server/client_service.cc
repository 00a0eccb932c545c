// SPDX-License-Identifier: Apache-2.0
// ClientService: connections and the connect handshake; the requests of an
// established session are answered in request_dispatch.cc.
#include "zkd/server/client_service.h"

#include <algorithm>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"
#include "zkd/log/log.h"
#include "zkd/server/client_frames.h"

namespace zkd::server {

using net::hex;
using net::log_info;
using net::log_warn;

namespace {

// refusal()'s reason while the replica is in election.
constexpr std::string_view kNoQuorum = "no quorum";
// Frames a connection may send behind a held ConnectRequest.
constexpr size_t kMostHeldFrames = 1000;

// Whether a ConnectRequest allows a read-only server (Java's canBeReadOnly).
bool allows_read_only(std::string_view connect_request) {
  zk::wire::ConnectRequest request;
  return zk::wire::decode(connect_request, request) && request.read_only;
}

}  // namespace

ClientService::ClientService(Parts parts)
    : config_(parts.config),
      security_(parts.security),
      db_(parts.db),
      clients_(parts.clients),
      sessions_(parts.sessions),
      writes_(parts.writes),
      view_(parts.view),
      stats_(parts.stats),
      read_only_(parts.read_only),
      audit_(parts.audit),
      clock_(parts.clock),
      whitelist_(parts.config.four_letter_whitelist),
      throttle_(parts.config.connection_throttle, parts.clock.steady_ms()),
      random_(parts.seed),
      large_requests_(parts.config.large_request_threshold, parts.config.large_request_max_bytes),
      hold_(parts.config.replicated() ? parts.config.peer_silence_ms() : 0) {}

std::string ClientService::four_letter_word(net::ClientConnection& connection,
                                            std::string_view word, std::string_view argument) {
  if (ClientState* client = clients_.find(connection.id())) count_non_mtls(*client);
  if (!whitelist_.allows(word)) return not_whitelisted_message(word);
  return view_.four_letter_word(word, argument);
}

void ClientService::opened(const std::shared_ptr<net::ClientConnection>& connection) {
  ++stats_.metrics.connection_request_count;
  clients_.add(connection, clock_.wall_ms());
}

void ClientService::rejected(std::string_view /*address*/) { ++stats_.metrics.connection_rejected; }

void ClientService::throttled(net::ClientConnection& /*connection*/) {
  ++stats_.metrics.request_throttle_wait_count;
}

void ClientService::dropped_by_peer(net::ClientConnection& /*connection*/) {
  ++stats_.metrics.connection_drop_count;
}

void ClientService::tls_handshake_started(net::ClientConnection& connection) {
  ClientState* client = clients_.find(connection.id());
  if (client == nullptr || client->tls_handshaking) return;
  client->tls_handshaking = true;
  ++stats_.metrics.outstanding_tls_handshake;
}

void ClientService::handshake_expired(net::ClientConnection& /*connection*/) {
  ++stats_.metrics.sessionless_connections_expired;
}

void ClientService::tls_handshake_ended(ClientState& client) {
  if (!client.tls_handshaking) return;
  client.tls_handshaking = false;
  --stats_.metrics.outstanding_tls_handshake;
}

void ClientService::count_non_mtls(ClientState& client) {
  // Apache's Netty factory counts every connection without TLS, by whether
  // it comes from a loopback address.
  if (client.counted_as_non_mtls || client.connection->secure()) return;
  client.counted_as_non_mtls = true;
  ++(client.connection->remote().address().is_loopback()
         ? stats_.metrics.non_mtls_local_conn_count
         : stats_.metrics.non_mtls_remote_conn_count);
}

void ClientService::secured(net::ClientConnection& connection) {
  ClientState* client = clients_.find(connection.id());
  if (client != nullptr) tls_handshake_ended(*client);
  const std::string& subject = connection.peer_certificate_subject();
  if (client == nullptr || subject.empty()) return;
  if (!config_.x509_super_user.empty() && subject == config_.x509_super_user) {
    client->auth.add({std::string(tree::kSuperScheme), subject});
  }
  client->auth.add({std::string(tree::kX509Scheme), subject});
}

void ClientService::closed(net::ClientConnection& connection) {
  held_.erase(connection.id());
  ClientState* client = clients_.find(connection.id());
  if (client == nullptr) return;
  tls_handshake_ended(*client);
  writes_.pipeline().forget(connection.id());
  large_requests_.settle(connection.id());
  db_.remove_watcher(connection.id());
  const SessionId session = clients_.remove(connection.id());
  if (session != 0 && sessions_.tracker().contains(session)) {
    log_info("connection from ", connection.remote_text(), " for session ", hex(session),
             " closed; the session lives until it times out");
  }
}

std::string ClientService::refusal() const {
  const ReplicaHost* host = writes_.host();
  if (host != nullptr && host->diverged()) return "its tree diverged from its leader's";
  if (!view_.serving()) return std::string(kNoQuorum);
  return {};
}

void ClientService::serving() {
  if (!refusal().empty()) return;
  // Apache shuts its read-only server down: the clients look for a
  // read-write server, this one among them.
  std::vector<net::ConnectionId> read_only;
  for (const auto& [id, client] : clients_.all()) {
    if (client.read_only) read_only.push_back(id);
  }
  for (net::ConnectionId id : read_only) {
    if (ClientState* client = clients_.find(id)) ClientRegistry::close(*client);
  }
  take_held([](const ClientState&) { return true; });
}

void ClientService::read_only_started() {
  take_held([](const ClientState& client) { return allows_read_only(client.held_connect); });
}

void ClientService::take_held(const std::function<bool(const ClientState&)>& take) {
  std::set<net::ConnectionId> held;
  for (net::ConnectionId id : held_) {
    const ClientState* client = clients_.find(id);
    if (client != nullptr && !client->held_connect.empty() && take(*client)) held.insert(id);
  }
  for (net::ConnectionId id : held) held_.erase(id);
  for (net::ConnectionId id : held) {
    ClientState* client = clients_.find(id);
    if (client == nullptr || client->held_connect.empty()) continue;
    const std::string payload = std::exchange(client->held_connect, {});
    const std::vector<std::string> frames = std::exchange(client->held_frames, {});
    handle_connect(*client, payload);
    for (const std::string& frame : frames) {
      client = clients_.find(id);  // the handshake may have closed it
      if (client == nullptr || client->connection->closing()) break;
      take_frame(*client, frame);
    }
  }
}

void ClientService::frame(net::ClientConnection& connection, std::string_view payload) {
  ClientState* client = clients_.find(connection.id());
  if (client == nullptr) {
    connection.close();
    return;
  }
  ++stats_.packets_received;
  stats_.metrics.bytes_received_count += payload.size() + 4;  // with its length
  count_non_mtls(*client);
  const auto size = static_cast<int64_t>(payload.size());
  if (large_requests_.large(size) &&
      !large_requests_.admit(connection.id(), size, [this](net::ConnectionId id) {
        return writes_.pipeline().busy(id);
      })) {
    ++stats_.metrics.large_requests_rejected;
    log_warn("closing connection from ", connection.remote_text(), ": a request of ",
             payload.size(), " bytes would exceed largeRequestMaxBytes (",
             config_.large_request_max_bytes, " bytes of large requests in process)");
    ClientRegistry::close(*client);
    return;
  }
  take_frame(*client, payload);
  if (large_requests_.holds(connection.id()) && !writes_.pipeline().busy(connection.id())) {
    large_requests_.settle(connection.id());
  }
}

int ClientService::shed_connections(int percentage) {
  std::bernoulli_distribution shed(percentage / 100.0);
  std::vector<net::ConnectionId> chosen;
  for (const auto& [id, client] : clients_.all()) {
    if (percentage >= 100 || shed(random_)) chosen.push_back(id);
  }
  for (net::ConnectionId id : chosen) {
    if (ClientState* client = clients_.find(id)) ClientRegistry::close(*client);
  }
  return static_cast<int>(chosen.size());
}

bool ClientService::admitted_by_throttle(ClientState& client, int64_t session) {
  if (!throttle_.enabled()) return true;
  const int64_t now = clock_.steady_ms();
  const double draw = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  if (throttle_.admit(throttle_.tokens_needed(session), now, draw)) {
    stats_.metrics.connection_token_deficit.record(throttle_.deficit());
    return true;
  }
  ++stats_.metrics.connection_rejected;
  ++throttled_unlogged_;
  if (now - throttle_logged_ms_ >= 1000) {
    log_warn("connection throttle (connectionMaxTokens): closed ", throttled_unlogged_,
             " new connection(s) in the last second, the latest from ",
             client.connection->remote_text(), "; drop probability ", throttle_.drop_probability());
    throttle_logged_ms_ = now;
    throttled_unlogged_ = 0;
  }
  ClientRegistry::close(client);
  return false;
}

void ClientService::take_frame(ClientState& state, std::string_view payload) {
  ClientState* client = &state;
  net::ClientConnection& connection = *client->connection;
  switch (client->phase) {
    case ClientState::Phase::kHandshake: {
      const std::string why = client->held_connect.empty() ? refusal() : std::string();
      if (!client->held_connect.empty()) {
        // Java's client sends setWatches and its auth right behind the
        // ConnectRequest: they follow it once it is taken.
        if (client->held_frames.size() >= kMostHeldFrames) {
          log_warn("closing connection from ", connection.remote_text(), ": more than ",
                   kMostHeldFrames, " frames behind a held ConnectRequest");
          ClientRegistry::close(*client);
        } else {
          client->held_frames.emplace_back(payload);
        }
      } else if (why == kNoQuorum && read_only_.active() && allows_read_only(payload)) {
        handle_connect(*client, payload);
      } else if (why == kNoQuorum && hold_.count() > 0) {
        // One that allows a read-only server may wait for read-only mode too.
        const auto hold = read_only_.enabled() && allows_read_only(payload)
                              ? hold_ + std::chrono::milliseconds(read_only_.grace_ms())
                              : hold_;
        client->held_connect = std::string(payload);
        held_.insert(connection.id());
        connection.hold_handshake(
            hold, "this replica did not serve within " + std::to_string(hold.count()) + " ms");
      } else if (!why.empty()) {
        // Apache: "ZooKeeperServer not running"; the client tries another server.
        log_info("closing connection from ", connection.remote_text(),
                 ": this replica is not serving (", why, ")");
        ++stats_.metrics.cnxn_closed_without_zk_server_running;
        ClientRegistry::close(*client);
      } else {
        handle_connect(*client, payload);
      }
      break;
    }
    case ClientState::Phase::kConnecting:
      // Apache stops reading until the session is settled: keep the frame.
      writes_.pipeline().defer(connection.id(),
                               PendingRequest{std::string(payload), clock_.steady_ms()});
      break;
    case ClientState::Phase::kEstablished:
      if (!client->close_requested) {
        handle(*client, payload, Arrival::kNew, clock_.steady_ms());
      }
      break;
    case ClientState::Phase::kClosing:
      break;
  }
}

void ClientService::handle_connect(ClientState& client, std::string_view payload) {
  auto& conn = *client.connection;
  zk::wire::ConnectRequest request;
  if (!zk::wire::decode(payload, request)) {
    log_warn("closing connection from ", conn.remote_text(), ": malformed ConnectRequest");
    ++stats_.metrics.unsuccessful_handshake;
    conn.close();
    return;
  }
  if (!admitted_by_throttle(client, request.session_id)) return;
  if (request.last_zxid_seen > db_.last_zxid()) {
    log_info("refusing connection from ", conn.remote_text(), ": client has seen zxid ",
             hex(request.last_zxid_seen), ", this server only ", hex(db_.last_zxid()));
    ++stats_.metrics.unsuccessful_handshake;
    conn.close();
    return;
  }
  const int32_t timeout = std::clamp(request.timeout_ms, config_.min_session_timeout_ms,
                                     config_.max_session_timeout_ms);
  if (!view_.serving()) {
    // Reached without a quorum only in read-only mode, by a client that
    // allows it (take_frame, read_only_started).
    connect_read_only(client, request, timeout);
    return;
  }
  if (request.session_id == 0) {
    WriteRequest create;
    create.kind = WriteRequest::Kind::kCreateSession;
    create.session = sessions_.new_id();
    create.timeout_ms = timeout;
    PendingWrite write;
    write.kind = PendingWrite::Kind::kCreateSession;
    write.op = zk::wire::OpCode::kCreateSession;
    write.started_ms = clock_.steady_ms();
    client.session_id = create.session;
    client.timeout_ms = timeout;
    client.connect_has_read_only = request.has_read_only;
    client.phase = ClientState::Phase::kConnecting;
    writes_.submit(conn.id(), std::move(write), create);
    return;
  }
  const SessionId session = request.session_id;
  const bool alive = sessions_.alive(session);
  if (!alive || !sessions_.password_matches(session, request.passwd)) {
    refuse_session(client, request, alive ? "wrong password" : "unknown or expired session");
    return;
  }
  claim(client, session);
  ++stats_.metrics.connection_revalidate_count;
  sessions_.resumed(session, timeout, clock_.steady_ms());
  client.session_id = session;
  client.timeout_ms = timeout;
  log_info("session ", hex(session), " resumed by ", conn.remote_text(), ", timeout ", timeout,
           " ms");
  // An Apache leader must take this server as the session's owner before its
  // next write here, which follows on the same link.
  if (config_.apache_peer_protocol) writes_.revalidate(session, timeout);
  establish(client, session, timeout, request.has_read_only);
}

void ClientService::connect_read_only(ClientState& client, const zk::wire::ConnectRequest& request,
                                      int32_t timeout_ms) {
  SessionId session = request.session_id;
  if (session == 0) {
    // This server's alone: the quorum never hears of it.
    session = sessions_.new_id();
  } else if (!db_.session_exists(session) || !sessions_.password_matches(session, request.passwd)) {
    refuse_session(client, request,
                   db_.session_exists(session) ? "wrong password" : "unknown or expired session");
    return;
  } else {
    claim(client, session);
  }
  client.session_id = session;
  client.timeout_ms = timeout_ms;
  client.read_only = true;
  log_info("read-only session ", hex(session),
           request.session_id == 0 ? " created for " : " resumed by ",
           client.connection->remote_text(), ", timeout ", timeout_ms, " ms");
  establish(client, session, timeout_ms, request.has_read_only);
}

void ClientService::refuse_session(ClientState& client, const zk::wire::ConnectRequest& request,
                                   std::string_view why) {
  log_info("refusing to resume session ", hex(request.session_id), " from ",
           client.connection->remote_text(), ": ", why);
  ++stats_.metrics.unsuccessful_handshake;
  zk::wire::ConnectResponse response;
  response.read_only = false;
  response.timeout_ms = 0;
  response.session_id = 0;
  response.passwd = std::string(SessionPasswords::kPasswordSize, '\0');
  clients_.send(client, connect_response_frame(response, request.has_read_only));
  ClientRegistry::close_after_flush(client);
}

void ClientService::claim(ClientState& client, SessionId session) {
  ClientState* other = clients_.owner(session);
  if (other == nullptr || other == &client) return;
  log_info("session ", hex(session), " moves from ", other->connection->remote_text(), " to ",
           client.connection->remote_text(), "; closing the old connection");
  ClientRegistry::close(*other);
}

void ClientService::establish(ClientState& client, SessionId session, int32_t timeout_ms,
                              bool has_read_only) {
  zk::wire::ConnectResponse response;
  response.read_only = client.read_only;
  response.timeout_ms = timeout_ms;
  response.session_id = session;
  response.passwd = sessions_.password(session);
  client.phase = ClientState::Phase::kEstablished;
  clients_.bind(session, client.connection->id());
  client.connection->mark_established();
  clients_.send(client, connect_response_frame(response, has_read_only));
}

void ClientService::session_created(ClientState* client, const PendingWrite& write) {
  const SessionId session = write.txn.header.session_id;
  const auto& body = std::get<tree::CreateSessionTxn>(write.txn.body);
  // Tracked even when its client left meanwhile: it then expires as usual.
  sessions_.track(session, body.timeout_ms, clock_.steady_ms());
  if (client == nullptr || client->phase != ClientState::Phase::kConnecting) return;
  client->last_operation = "SESS";
  client->last_cxid = 0;
  client->last_zxid = write.txn.header.zxid;
  client->last_response_wall_ms = clock_.wall_ms();
  establish(*client, session, body.timeout_ms, client->connect_has_read_only);
  log_info("session ", hex(session), " created for ", client->connection->remote_text(),
           ", timeout ", body.timeout_ms, " ms");
}

}  // namespace zkd::server
