#include "zkd/server/standalone_server.h"

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <chrono>
#include <utility>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"
#include "zkd/net/log.h"

namespace zkd::server {

namespace asio = boost::asio;
using net::hex;
using net::log_info;
using net::log_warn;

int64_t wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t steady_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

StandaloneServer::StandaloneServer(asio::io_context& io, ServerConfig config)
    : io_(io),
      config_(std::move(config)),
      whitelist_(config_.four_letter_whitelist),
      tracker_(config_.tick_time_ms),
      session_ids_(1, steady_clock_ms()),
      passwords_(SessionPasswords::with_random_key()),
      tick_timer_(io),
      started_steady_ms_(steady_clock_ms()) {
  listener_ = std::make_shared<net::ClientListener>(io_, *this, config_.max_client_cnxns,
                                                    net::ConnectionOptions{});
}

StandaloneServer::~StandaloneServer() = default;

boost::system::error_code StandaloneServer::start() {
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
                                                      net::ConnectionOptions{});
    ec = listener_->listen(endpoint);
  }
  if (ec) return ec;
  listener_->start();
  schedule_tick();
  log_info("serving clients on ", listener_->local_endpoint(), " (tickTime ", config_.tick_time_ms,
           " ms, session timeout ", config_.min_session_timeout_ms, "..",
           config_.max_session_timeout_ms, " ms)");
  return {};
}

asio::ip::tcp::endpoint StandaloneServer::endpoint() const { return listener_->local_endpoint(); }

void StandaloneServer::stop() {
  if (stopped_) return;
  stopped_ = true;
  listener_->stop();
  tick_timer_.cancel();
  // Copy: close() does not call back synchronously, but keep iteration safe.
  std::vector<std::shared_ptr<net::ClientConnection>> open;
  for (auto& [id, client] : clients_) open.push_back(client.connection);
  for (auto& c : open) c->close();
}

void StandaloneServer::opened(const std::shared_ptr<net::ClientConnection>& connection) {
  ClientState state;
  state.connection = connection;
  state.opened_wall_ms = wall_clock_ms();
  clients_.emplace(connection->id(), std::move(state));
}

void StandaloneServer::closed(net::ClientConnection& connection) {
  auto it = clients_.find(connection.id());
  if (it == clients_.end()) return;
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

void StandaloneServer::frame(net::ClientConnection& connection, std::string_view payload) {
  auto it = clients_.find(connection.id());
  if (it == clients_.end()) {
    connection.close();
    return;
  }
  ClientState& client = it->second;
  ++packets_received_;
  switch (client.phase) {
    case ClientState::Phase::kHandshake:
      handle_connect(client, payload);
      break;
    case ClientState::Phase::kEstablished:
      handle_request(client, payload);
      break;
    case ClientState::Phase::kClosing:
      break;
  }
}

namespace {

std::string connect_response_frame(const zk::wire::ConnectResponse& response) {
  std::string out;
  zk::wire::Writer w(out);
  size_t start = w.begin_frame();
  response.write(w);
  w.end_frame(start);
  return out;
}

}  // namespace

void StandaloneServer::handle_connect(ClientState& client, std::string_view payload) {
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
  response.has_read_only = request.has_read_only;
  response.read_only = false;

  if (request.session_id == 0) {
    SessionId session = session_ids_.next();
    auto txn = db_.prepare_create_session(session, timeout, next_zxid(), wall_clock_ms());
    commit(txn);
    tracker_.touch(session, timeout, steady_clock_ms());
    client.last_operation = "SESS";
    client.last_cxid = 0;
    client.last_zxid = txn.header.zxid;
    client.last_response_wall_ms = wall_clock_ms();
    response.timeout_ms = timeout;
    response.session_id = session;
    response.passwd = passwords_.password(session);
    client.session_id = session;
    log_info("session ", hex(session), " created for ", conn.remote_text(), ", timeout ", timeout,
             " ms");
  } else {
    SessionId session = request.session_id;
    bool alive = tracker_.contains(session) && db_.session_exists(session);
    if (!alive || !passwords_.matches(session, request.passwd)) {
      log_info("refusing to resume session ", hex(session), " from ", conn.remote_text(), ": ",
               alive ? "wrong password" : "unknown or expired session");
      response.timeout_ms = 0;
      response.session_id = 0;
      response.passwd = std::string(SessionPasswords::kPasswordSize, '\0');
      send(client, connect_response_frame(response));
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
  send(client, connect_response_frame(response));
}

void StandaloneServer::schedule_tick() {
  if (stopped_) return;
  tick_timer_.expires_after(std::chrono::milliseconds(config_.tick_time_ms));
  tick_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled by stop()
    expire_due_sessions();
    schedule_tick();
  });
}

void StandaloneServer::expire_due_sessions() {
  for (SessionId session : tracker_.expire(steady_clock_ms())) {
    log_info("session ", hex(session), " expired");
    end_session(session);
  }
}

void StandaloneServer::end_session(SessionId session) {
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
    commit(db_.prepare_close_session(session, next_zxid(), wall_clock_ms()));
  }
}

}  // namespace zkd::server
