// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/session.h"

#include <fcntl.h>

#include <algorithm>
#include <array>
#include <exception>
#include <random>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "libzk/client/connection.h"
#include "libzk/client/sasl.h"
#include "libzk/wire/frame.h"
#include "libzk/wire/jute.h"

namespace zk::client {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using zk::wire::KeeperState;
using zk::wire::OpCode;
using Clock = std::chrono::steady_clock;

namespace {

// Background coroutines must not fail silently: an exception escaping one is
// a bug, rethrown out of io_context::run() (the process edge).
void rethrow_if_failed(std::exception_ptr e) {
  if (e) std::rethrow_exception(e);
}

// Java caps the ping interval at 10 s (ClientCnxn.MAX_SEND_PING_INTERVAL).
constexpr std::chrono::milliseconds kMaxPingInterval{10000};

// Java splits setWatches into packets of about this much path text.
constexpr size_t kSetWatchesChunk = 128 * 1024;

// The shortest budget for one TCP connect plus handshake.
constexpr std::chrono::milliseconds kMinConnectTimeout{1000};

}  // namespace

ClientSession::ClientSession(asio::any_io_executor executor, ClientOptions options)
    : executor_(std::move(executor)), options_(std::move(options)), backoff_timer_(executor_) {}

ClientSession::~ClientSession() = default;

std::string ClientSession::auth_failure() const {
  std::lock_guard lock(credentials_mu_);
  return sasl_error_;
}

void ClientSession::set_sasl_error(std::string why) {
  std::lock_guard lock(credentials_mu_);
  sasl_error_ = std::move(why);
}

SessionCredentials ClientSession::credentials() const {
  std::lock_guard lock(credentials_mu_);
  return credentials_;
}

bool ClientSession::terminal() const {
  SessionState s = state_.load();
  return s == SessionState::kExpired || s == SessionState::kClosed ||
         s == SessionState::kAuthFailed;
}

Error ClientSession::terminal_error() const {
  switch (state_.load()) {
    case SessionState::kExpired:
      return Error::kSessionExpired;
    case SessionState::kAuthFailed:
      return Error::kAuthFailed;
    default:
      return Error::kClosing;
  }
}

int32_t ClientSession::next_xid() {
  xid_ = (xid_ >= INT32_MAX || xid_ < 0) ? 1 : xid_ + 1;  // Java: 1, 2, ..., wraps to 1
  return xid_;
}

ClientSession::Outgoing ClientSession::make_outgoing(int32_t xid, OpCode op,
                                                     const std::string& record) {
  Outgoing out;
  out.xid = xid;
  out.op = op;
  zk::wire::Writer w(out.frame);
  size_t start = w.begin_frame();
  zk::wire::RequestHeader{xid, op}.write(w);
  out.frame.append(record);
  w.end_frame(start);
  return out;
}

void ClientSession::set_state(SessionState s) {
  state_.store(s);
  if (options_.on_session_event) options_.on_session_event(s);
}

void ClientSession::sync_zxid() { last_zxid_seen_.store(dispatcher_.last_zxid_seen()); }

void ClientSession::wake_writer() {
  if (conn_) conn_->writer_wake.cancel();
}

void ClientSession::fail_queued(Error e) {
  std::deque<Outgoing> queued = std::move(outgoing_);
  outgoing_.clear();
  for (Outgoing& o : queued) {
    if (!o.on_reply) continue;
    Reply reply;
    reply.header.xid = o.xid;
    reply.header.err = e;
    o.on_reply(std::move(reply));
  }
}

void ClientSession::end_session(SessionState state, Error op_error, KeeperState watch_state) {
  if (terminal()) return;
  state_.store(state);  // from here on terminal(): no reconnects, no new requests
  closing_ = true;
  if (conn_) conn_->close();
  backoff_timer_.cancel();
  dispatcher_.fail_outstanding(op_error);
  fail_queued(op_error);
  for (auto& [path, callback] : dispatcher_.watches().take_all()) {
    if (callback) callback(WatchedEvent{zk::wire::EventType::kNone, watch_state, path});
  }
  if (first_connect_) {
    first_connect_->set(op_error == Error::kSessionExpired || op_error == Error::kAuthFailed
                            ? op_error
                            : Error::kConnectionLoss);
  }
  if (options_.on_session_event) options_.on_session_event(state);
}

void ClientSession::shutdown() {
  if (!started_) {
    state_.store(SessionState::kClosed);
    return;
  }
  end_session(SessionState::kClosed, Error::kConnectionLoss, KeeperState::kClosed);
}

awaitable<Status> ClientSession::connect(std::string connect_string,
                                         std::chrono::milliseconds deadline) {
  if (started_ || terminal()) co_return Error::kInvalidState;
  auto parsed = parse_connect_string(connect_string);
  if (!parsed) co_return parsed.error();
  hosts_ = std::move(parsed->hosts);
  if (options_.shuffle_hosts && hosts_.size() > 1) {
    std::mt19937 rng(std::random_device{}());
    std::shuffle(hosts_.begin(), hosts_.end(), rng);
  }
  dispatcher_ = ResponseDispatcher(Chroot(std::move(parsed->chroot)));
  if (options_.resume) {
    session_id_.store(options_.resume->session_id);
    password_ = options_.resume->password;
  }
  started_ = true;
  first_connect_ = std::make_shared<OneShot<Error>>(executor_);
  asio::co_spawn(executor_, run(), rethrow_if_failed);

  auto first = first_connect_;  // keep alive across the wait
  std::optional<Error> result = co_await first->wait_until(Clock::now() + deadline);
  if (!result) {
    end_session(SessionState::kClosed, Error::kConnectionLoss, KeeperState::kClosed);
    co_return Error::kConnectionLoss;
  }
  co_return *result;
}

std::chrono::milliseconds ClientSession::connect_timeout() const {
  const auto session = std::chrono::milliseconds(
      negotiated_timeout_ms_.load() > 0 ? negotiated_timeout_ms_.load()
                                        : static_cast<int32_t>(options_.session_timeout.count()));
  // Java's share per host (sessionTimeout / hosts), but never more than a
  // third of the session: with one or two hosts Java's share is (nearly) the
  // whole session, so one server that accepts TCP and never answers the
  // handshake (Apache 3.8 does that to connections accepted while it starts
  // up) leaves no time for a second attempt before the session expires.
  const auto share = std::min(session / static_cast<int64_t>(hosts_.size()), session / 3);
  return std::max(kMinConnectTimeout, share);
}

awaitable<bool> ClientSession::secure(const std::shared_ptr<Connection>& conn,
                                      const std::string& host) {
  conn->secure(options_.tls_context);
  SSL* ssl = conn->tls->native_handle();
  boost::system::error_code ec;
  asio::ip::make_address(host, ec);
  const bool literal = !ec;                                   // an address, not a host name
  if (!literal) SSL_set_tlsext_host_name(ssl, host.c_str());  // SNI names hosts only
  if (options_.tls_verify_host) {
    if (literal) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host.c_str());
    } else {
      SSL_set1_host(ssl, host.c_str());
    }
  }
  ec.clear();
  co_await conn->tls->async_handshake(asio::ssl::stream_base::client,
                                      asio::redirect_error(use_awaitable, ec));
  co_return !ec && conn->is_open();
}

awaitable<Error> ClientSession::establish(const std::shared_ptr<Connection>& conn,
                                          const HostPort& host) {
  conn->watchdog.expires_after(connect_timeout());
  asio::co_spawn(
      executor_,
      [conn]() -> awaitable<void> {
        boost::system::error_code ec;
        co_await conn->watchdog.async_wait(asio::redirect_error(use_awaitable, ec));
        // The handshake resets the expiry to max when it finishes in time.
        if (!ec && conn->watchdog.expiry() != asio::steady_timer::time_point::max()) {
          conn->close();  // deadline passed before the handshake finished
        }
      },
      rethrow_if_failed);

  boost::system::error_code ec;
  asio::ip::tcp::resolver resolver(executor_);
  auto endpoints = co_await resolver.async_resolve(host.host, std::to_string(host.port),
                                                   asio::redirect_error(use_awaitable, ec));
  if (ec || !conn->is_open()) co_return Error::kConnectionLoss;
  co_await asio::async_connect(conn->socket, endpoints, asio::redirect_error(use_awaitable, ec));
  if (ec || !conn->is_open()) co_return Error::kConnectionLoss;
  // Processes this one starts (tools, test servers) must not inherit the
  // connection and keep it open after the client closes it.
  if (::fcntl(conn->socket.native_handle(), F_SETFD, FD_CLOEXEC) != 0) {
    co_return Error::kConnectionLoss;
  }
  conn->socket.set_option(asio::ip::tcp::no_delay(true), ec);
  if (ec) co_return Error::kConnectionLoss;
  if (options_.tls_context && !co_await secure(conn, host.host)) co_return Error::kConnectionLoss;

  zk::wire::ConnectRequest request;
  request.last_zxid_seen = dispatcher_.last_zxid_seen();
  request.timeout_ms = static_cast<int32_t>(options_.session_timeout.count());
  request.session_id = session_id_.load();
  request.passwd = password_;
  request.has_read_only = true;
  request.read_only = options_.can_be_read_only;
  std::string frame;
  zk::wire::Writer w(frame);
  size_t start = w.begin_frame();
  request.write(w);
  w.end_frame(start);
  co_await conn->write(asio::buffer(frame), ec);
  if (ec || !conn->is_open()) co_return Error::kConnectionLoss;

  std::array<char, 4> length_bytes{};
  co_await conn->read_exactly(asio::buffer(length_bytes), ec);
  if (ec || !conn->is_open()) co_return Error::kConnectionLoss;
  zk::wire::Reader length_reader(std::string_view(length_bytes.data(), length_bytes.size()));
  int32_t length = length_reader.int32();
  if (length <= 0 || length > 4096) co_return Error::kConnectionLoss;
  std::string body(static_cast<size_t>(length), '\0');
  co_await conn->read_exactly(asio::buffer(body), ec);
  if (ec || !conn->is_open()) co_return Error::kConnectionLoss;

  zk::wire::ConnectResponse response;
  if (!zk::wire::decode(body, response)) co_return Error::kConnectionLoss;
  if (response.timeout_ms <= 0) co_return Error::kSessionExpired;
  if (options_.sasl) {
    if (Error e = co_await authenticate(conn, host.host); e != Error::kOk) co_return e;
  }
  conn->watchdog.expires_at(asio::steady_timer::time_point::max());  // disarms the watchdog

  session_id_.store(response.session_id);
  password_ = response.passwd;
  negotiated_timeout_ms_.store(response.timeout_ms);
  {
    std::lock_guard lock(credentials_mu_);
    credentials_ = SessionCredentials{response.session_id, response.passwd};
  }
  conn->read_timeout = std::chrono::milliseconds(response.timeout_ms * 2 / 3);
  conn->last_recv = Clock::now();
  conn->last_send = Clock::now();
  co_return Error::kOk;
}

awaitable<Error> ClientSession::authenticate(const std::shared_ptr<Connection>& conn,
                                             const std::string& host) {
  auto started = start_sasl(*options_.sasl, host);
  if (auto* why = std::get_if<std::string>(&started)) {
    set_sasl_error(*why);
    co_return Error::kAuthFailed;
  }
  auto exchange = std::move(std::get<0>(started));
  SaslClientExchange::Step step = exchange->first();
  while (step.error.empty() && step.token) {
    std::string frame;
    zk::wire::Writer w(frame);
    const size_t start = w.begin_frame();
    zk::wire::RequestHeader{next_xid(), OpCode::kSasl}.write(w);
    w.buffer(std::string_view(*step.token));
    w.end_frame(start);
    boost::system::error_code ec;
    co_await conn->write(asio::buffer(frame), ec);
    if (ec || !conn->is_open()) co_return Error::kConnectionLoss;
    // The reply comes before anything else: nothing else was sent yet.
    std::array<char, 4> length_bytes{};
    co_await conn->read_exactly(asio::buffer(length_bytes), ec);
    if (ec || !conn->is_open()) co_return Error::kConnectionLoss;
    const int32_t length =
        zk::wire::Reader(std::string_view(length_bytes.data(), length_bytes.size())).int32();
    if (length < static_cast<int32_t>(zk::wire::kReplyHeaderSize) ||
        length > kDefaultMaxReplyBytes) {
      co_return Error::kConnectionLoss;
    }
    std::string body(static_cast<size_t>(length), '\0');
    co_await conn->read_exactly(asio::buffer(body), ec);
    if (ec || !conn->is_open()) co_return Error::kConnectionLoss;
    zk::wire::Reader r(body);
    zk::wire::ReplyHeader header;
    header.read(r);
    if (!r.ok()) co_return Error::kConnectionLoss;
    if (header.err != Error::kOk) {
      set_sasl_error("the server refused the SASL " + options_.sasl->mechanism + " credentials (" +
                     std::string(zk::wire::error_name(header.err)) + ")");
      co_return Error::kAuthFailed;
    }
    const zk::wire::Buffer token = r.buffer();
    if (!r.ok()) co_return Error::kConnectionLoss;
    step = exchange->step(token.value_or(""));
  }
  if (!step.error.empty()) {
    set_sasl_error(step.error);
    co_return Error::kAuthFailed;
  }
  co_return Error::kOk;
}

void ClientSession::prime(const std::shared_ptr<Connection>& conn) {
  std::deque<Outgoing> first;
  for (const zk::wire::AuthPacket& auth : auth_infos_) {
    std::string record;
    zk::wire::Writer w(record);
    auth.write(w);
    Outgoing o = make_outgoing(zk::wire::kAuthXid, OpCode::kAuth, record);
    o.on_reply = [this](Reply reply) {
      if (reply.header.err == Error::kAuthFailed) {
        end_session(SessionState::kAuthFailed, Error::kAuthFailed, KeeperState::kAuthFailed);
      }
    };
    first.push_back(std::move(o));
  }

  WatchRegistry& watches = dispatcher_.watches();
  if (!watches.empty()) {
    const Chroot& chroot = dispatcher_.chroot();
    // SetWatches / SetWatches2 lists in record order.
    const std::array<WatchKind, 5> kinds = {WatchKind::kData, WatchKind::kExist, WatchKind::kChild,
                                            WatchKind::kPersistent,
                                            WatchKind::kPersistentRecursive};
    zk::wire::SetWatches batch;
    const std::array<std::vector<std::string>*, 5> lists = {
        &batch.data_watches, &batch.exist_watches, &batch.child_watches, &batch.persistent_watches,
        &batch.persistent_recursive_watches};
    size_t batch_bytes = 0;
    auto flush = [&] {
      if (batch_bytes == 0) return;
      batch.relative_zxid = dispatcher_.last_zxid_seen();
      // As Java: setWatches2 only for a batch that holds persistent watches,
      // so servers without it keep working for clients that use none.
      const bool v2 =
          !batch.persistent_watches.empty() || !batch.persistent_recursive_watches.empty();
      std::string record;
      zk::wire::Writer w(record);
      batch.write(w, v2);
      // Java gives setWatches an ordinary xid and expects its reply in order.
      Outgoing o =
          make_outgoing(next_xid(), v2 ? OpCode::kSetWatches2 : OpCode::kSetWatches, record);
      std::weak_ptr<Connection> weak = conn;
      o.on_reply = [weak](Reply reply) {
        // A connection whose watches could not be restored is not usable.
        if (reply.header.err != Error::kOk) {
          if (auto c = weak.lock()) c->close();
        }
      };
      first.push_back(std::move(o));
      batch = zk::wire::SetWatches{};
      batch_bytes = 0;
    };
    for (size_t kind = 0; kind < kinds.size(); ++kind) {
      for (const std::string& path : watches.paths(kinds[kind])) {
        std::string server_path = chroot.prefix(path);
        batch_bytes += server_path.size();
        lists[kind]->push_back(std::move(server_path));
        if (batch_bytes >= kSetWatchesChunk) flush();
      }
    }
    flush();
  }
  for (auto it = first.rbegin(); it != first.rend(); ++it) outgoing_.push_front(std::move(*it));
}

awaitable<void> ClientSession::run() {
  auto self = shared_from_this();
  size_t failures = 0;
  while (!terminal() && !closing_) {
    const HostPort host = hosts_[next_host_ % hosts_.size()];
    ++next_host_;
    auto conn = std::make_shared<Connection>(executor_);
    Error result = co_await establish(conn, host);
    if (terminal() || closing_) {
      conn->close();
      break;
    }
    if (result == Error::kSessionExpired) {
      conn->close();
      end_session(SessionState::kExpired, Error::kSessionExpired, KeeperState::kExpired);
      break;
    }
    if (result == Error::kAuthFailed) {  // SASL refused, as Java ends it
      conn->close();
      end_session(SessionState::kAuthFailed, Error::kAuthFailed, KeeperState::kAuthFailed);
      break;
    }
    if (result != Error::kOk) {
      conn->close();
      fail_queued(Error::kConnectionLoss);  // Java fails queued requests on each failed attempt
      if (++failures % hosts_.size() == 0) {
        backoff_timer_.expires_after(options_.reconnect_backoff);
        boost::system::error_code ec;
        co_await backoff_timer_.async_wait(asio::redirect_error(use_awaitable, ec));
      }
      continue;
    }
    failures = 0;
    conn_ = conn;
    ever_connected_ = true;
    set_state(SessionState::kConnected);
    if (first_connect_) first_connect_->set(Error::kOk);
    if (terminal() || closing_) break;  // the listener may have closed the client
    prime(conn);
    asio::co_spawn(executor_, write_loop(conn), rethrow_if_failed);
    asio::co_spawn(executor_, ping_loop(conn), rethrow_if_failed);
    co_await read_loop(conn);
    conn->close();
    if (conn_ == conn) conn_.reset();
    if (terminal()) break;  // end_session already failed everything
    dispatcher_.fail_outstanding(Error::kConnectionLoss);
    fail_queued(Error::kConnectionLoss);
    if (closing_) break;  // close() in progress: it ends the session itself
    set_state(SessionState::kDisconnected);
  }
}

awaitable<void> ClientSession::read_loop(std::shared_ptr<Connection> conn) {
  std::string buffered;
  std::array<char, 64 * 1024> chunk{};
  size_t skipping = 0;  // bytes still to drop of a reply refused as too long
  while (conn->is_open()) {
    boost::system::error_code ec;
    size_t n = co_await conn->read_some(asio::buffer(chunk), ec);
    if (ec) co_return;
    conn->last_recv = Clock::now();
    buffered.append(chunk.data(), n);
    size_t consumed = 0;
    for (;;) {
      if (skipping > 0) {
        const size_t dropped = std::min(skipping, buffered.size() - consumed);
        consumed += dropped;
        skipping -= dropped;
        if (skipping > 0) break;
      }
      const std::string_view rest = std::string_view(buffered).substr(consumed);
      auto frame = zk::wire::next_frame(rest, options_.max_reply_bytes);
      if (frame.status == zk::wire::FrameStatus::kNeedMore) break;
      ResponseDispatcher::Route route;
      if (frame.status == zk::wire::FrameStatus::kBadLength) {
        // Too long to read (longer than max_reply_bytes) fails only its
        // request, once its header is here; a length no reply can have
        // ends the connection.
        if (frame.length < static_cast<int32_t>(zk::wire::kReplyHeaderSize)) co_return;
        constexpr size_t kLengthSize = 4;
        if (rest.size() < kLengthSize + zk::wire::kReplyHeaderSize) break;
        refused_reply_bytes_.store(frame.length);
        route =
            dispatcher_.dispatch_oversized(rest.substr(kLengthSize, zk::wire::kReplyHeaderSize));
        consumed += kLengthSize;
        skipping = static_cast<size_t>(frame.length);
      } else {
        route = dispatcher_.dispatch(frame.payload);
        consumed += frame.consumed;
      }
      sync_zxid();
      if (route == ResponseDispatcher::Route::kOutOfOrder ||
          route == ResponseDispatcher::Route::kMalformed) {
        co_return;  // fatal for the connection, as in Java and kazoo
      }
      if (!conn->is_open() || terminal()) co_return;
    }
    buffered.erase(0, consumed);
  }
}

awaitable<void> ClientSession::write_loop(std::shared_ptr<Connection> conn) {
  auto self = shared_from_this();
  constexpr size_t kMaxBatch = 256 * 1024;
  while (conn->is_open()) {
    if (outgoing_.empty()) {
      conn->writer_wake.expires_at(asio::steady_timer::time_point::max());
      boost::system::error_code ec;
      co_await conn->writer_wake.async_wait(asio::redirect_error(use_awaitable, ec));
      continue;
    }
    std::string batch;
    while (!outgoing_.empty() && batch.size() < kMaxBatch) {
      Outgoing o = std::move(outgoing_.front());
      outgoing_.pop_front();
      batch.append(o.frame);
      if (o.xid != zk::wire::kPingXid) {
        // Recorded before the write completes: the reply may be read first.
        dispatcher_.sent(SentRequest{o.xid, o.op, std::move(o.watch), std::move(o.on_reply)});
      }
    }
    conn->last_send = Clock::now();
    boost::system::error_code ec;
    co_await conn->write(asio::buffer(batch), ec);
    if (ec) {
      conn->close();
      co_return;
    }
  }
}

awaitable<void> ClientSession::ping_loop(std::shared_ptr<Connection> conn) {
  auto self = shared_from_this();
  const auto read_timeout = conn->read_timeout;
  const auto ping_interval =
      std::min<std::chrono::milliseconds>(read_timeout / 2, kMaxPingInterval);
  while (conn->is_open()) {
    auto now = Clock::now();
    if (now >= conn->last_recv + read_timeout) {
      conn->close();  // nothing received within readTimeout: the connection is lost
      co_return;
    }
    if (now >= conn->last_send + ping_interval) {
      outgoing_.push_back(make_outgoing(zk::wire::kPingXid, OpCode::kPing, {}));
      conn->last_send = now;
      wake_writer();
    }
    conn->ping_timer.expires_at(
        std::min(conn->last_recv + read_timeout, conn->last_send + ping_interval));
    boost::system::error_code ec;
    co_await conn->ping_timer.async_wait(asio::redirect_error(use_awaitable, ec));
  }
}

awaitable<Result<Reply>> ClientSession::call(OpCode op, std::string record,
                                             std::optional<WatchRegistration> watch) {
  if (terminal()) co_return terminal_error();
  if (!started_) co_return Error::kConnectionLoss;
  if (closing_) co_return Error::kClosing;
  auto slot = std::make_shared<OneShot<Reply>>(executor_);
  Outgoing o = make_outgoing(next_xid(), op, record);
  o.watch = std::move(watch);
  o.on_reply = [slot](Reply reply) { slot->set(std::move(reply)); };
  outgoing_.push_back(std::move(o));
  wake_writer();
  co_return co_await slot->wait();
}

awaitable<Status> ClientSession::add_auth(std::string scheme, zk::wire::Buffer auth) {
  if (terminal()) co_return terminal_error();
  if (closing_) co_return Error::kClosing;
  zk::wire::AuthPacket packet;
  packet.scheme = std::move(scheme);
  packet.auth = std::move(auth);
  auth_infos_.push_back(packet);
  if (state_.load() != SessionState::kConnected) co_return Error::kOk;  // sent on connect

  std::string record;
  zk::wire::Writer w(record);
  packet.write(w);
  auto slot = std::make_shared<OneShot<Reply>>(executor_);
  Outgoing o = make_outgoing(zk::wire::kAuthXid, OpCode::kAuth, record);
  o.on_reply = [slot](Reply reply) { slot->set(std::move(reply)); };
  outgoing_.push_back(std::move(o));
  wake_writer();
  Reply reply = co_await slot->wait();
  if (reply.header.err == Error::kAuthFailed) {
    end_session(SessionState::kAuthFailed, Error::kAuthFailed, KeeperState::kAuthFailed);
  }
  co_return reply.header.err;
}

awaitable<Status> ClientSession::close() {
  if (terminal() || closing_) co_return Error::kOk;
  if (!started_ || state_.load() != SessionState::kConnected) {
    end_session(SessionState::kClosed, Error::kClosing, KeeperState::kClosed);
    co_return Error::kOk;
  }
  closing_ = true;  // later calls fail with kClosing; earlier ones are answered first
  auto slot = std::make_shared<OneShot<Reply>>(executor_);
  Outgoing o = make_outgoing(next_xid(), OpCode::kCloseSession, {});
  o.on_reply = [slot](Reply reply) { slot->set(std::move(reply)); };
  outgoing_.push_back(std::move(o));
  wake_writer();
  Reply reply = co_await slot->wait();
  end_session(SessionState::kClosed, Error::kClosing, KeeperState::kClosed);
  co_return reply.header.err;
}

}  // namespace zk::client
