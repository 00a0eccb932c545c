// SPDX-License-Identifier: Apache-2.0
// ClientSession: the engine behind zk::client::Client. Owns the session
// (id, password, negotiated timeout, last zxid seen), the connection to the
// current server, the queue of requests not yet written, and the
// ResponseDispatcher that matches replies and holds watches.
//
// Threading: everything except the atomic accessors runs on the executor
// given at construction, which must not run handlers concurrently. Background
// coroutines (the connection loop, writer, pinger) hold a shared_ptr to the
// session, so it lives until they end; shutdown() ends them.
//
// Connection loop (run): pick the next host, TCP connect and handshake within
// the connect timeout (session timeout / number of hosts, at most a third of
// the session timeout, at least 1 s); on success send
// the stored auth packets and setWatches (setWatches2 for batches with
// persistent watches) ahead of queued requests, then read
// until the connection fails. While connected a pinger sends a ping when
// nothing was sent for readTimeout/2 (readTimeout = 2/3 of the negotiated
// timeout) and drops the connection when nothing arrived for readTimeout.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include "libzk/client/client.h"
#include "libzk/client/one_shot.h"
#include "libzk/client/response_dispatcher.h"

namespace zk::client {

class Connection;

class ClientSession : public std::enable_shared_from_this<ClientSession> {
 public:
  ClientSession(boost::asio::any_io_executor executor, ClientOptions options);
  ~ClientSession();

  // See Client::connect.
  boost::asio::awaitable<Status> connect(std::string connect_string,
                                         std::chrono::milliseconds deadline);

  // Queues a request (`record` is the encoded request record, without
  // header) and waits for its reply. Fails without a round trip with
  // kSessionExpired / kClosing / kAuthFailed when the session has ended and
  // kConnectionLoss before connect(). A reply with err != 0 is returned as
  // a Reply (the caller decides what is an error).
  boost::asio::awaitable<Result<Reply>> call(zk::wire::OpCode op, std::string record,
                                             std::optional<WatchRegistration> watch = {});

  // See Client::add_auth / Client::close.
  boost::asio::awaitable<Status> add_auth(std::string scheme, zk::wire::Buffer auth);
  boost::asio::awaitable<Status> close();

  // Ends the session locally without closeSession: outstanding requests fail
  // with kConnectionLoss, watches fire with kClosed, the listener gets kClosed.
  void shutdown();

  const Chroot& chroot() const { return dispatcher_.chroot(); }
  // The session's watch tables (removeWatches edits them).
  WatchRegistry& watches() { return dispatcher_.watches(); }
  const boost::asio::any_io_executor& executor() const { return executor_; }

  // Safe from any thread.
  SessionState state() const { return state_.load(); }
  int64_t session_id() const { return session_id_.load(); }
  SessionCredentials credentials() const;
  // See Client::auth_failure.
  std::string auth_failure() const;
  std::chrono::milliseconds negotiated_timeout() const {
    return std::chrono::milliseconds(negotiated_timeout_ms_.load());
  }
  int64_t last_zxid_seen() const { return last_zxid_seen_.load(); }
  int64_t refused_reply_bytes() const { return refused_reply_bytes_.load(); }

 private:
  struct Outgoing {
    int32_t xid = 0;
    zk::wire::OpCode op = zk::wire::OpCode::kNotification;
    std::string frame;  // length prefix + header + record
    std::optional<WatchRegistration> watch;
    ReplyHandler on_reply;
  };

  bool terminal() const;
  Error terminal_error() const;
  int32_t next_xid();
  Outgoing make_outgoing(int32_t xid, zk::wire::OpCode op, const std::string& record);

  boost::asio::awaitable<void> run();
  // Budget for one TCP connect plus handshake (see session.cc).
  std::chrono::milliseconds connect_timeout() const;
  // TLS (ClientOptions::tls_context): the handshake with `host`, checking
  // that the server's certificate names it (tls_verify_host); false: the
  // connection cannot be used.
  boost::asio::awaitable<bool> secure(const std::shared_ptr<Connection>& conn,
                                      const std::string& host);
  boost::asio::awaitable<Error> establish(const std::shared_ptr<Connection>& conn,
                                          const HostPort& host);
  // ClientOptions::sasl: the SASL exchange right after the handshake.
  // kAuthFailed (sasl_error_ says why) when the server refuses or no
  // exchange can be made; kConnectionLoss when the connection fails.
  boost::asio::awaitable<Error> authenticate(const std::shared_ptr<Connection>& conn,
                                             const std::string& host);
  boost::asio::awaitable<void> read_loop(std::shared_ptr<Connection> conn);
  boost::asio::awaitable<void> write_loop(std::shared_ptr<Connection> conn);
  boost::asio::awaitable<void> ping_loop(std::shared_ptr<Connection> conn);
  void prime(const std::shared_ptr<Connection>& conn);
  void wake_writer();
  void set_state(SessionState s);
  void fail_queued(Error e);
  // Enters a terminal state: fails everything with `op_error`, fires every
  // watch with `watch_state`, notifies the listener with `state`.
  void end_session(SessionState state, Error op_error, zk::wire::KeeperState watch_state);
  void sync_zxid();
  void set_sasl_error(std::string why);

  boost::asio::any_io_executor executor_;
  ClientOptions options_;
  std::vector<HostPort> hosts_;
  size_t next_host_ = 0;
  bool started_ = false;
  bool closing_ = false;

  ResponseDispatcher dispatcher_{Chroot{}};
  std::deque<Outgoing> outgoing_;
  std::vector<zk::wire::AuthPacket> auth_infos_;
  std::shared_ptr<Connection> conn_;  // the established connection, if any
  int32_t xid_ = 0;
  std::string password_ = std::string(16, '\0');
  bool ever_connected_ = false;

  boost::asio::steady_timer backoff_timer_;
  std::shared_ptr<OneShot<Error>> first_connect_;

  std::atomic<SessionState> state_{SessionState::kDisconnected};
  std::atomic<int64_t> session_id_{0};
  std::atomic<int32_t> negotiated_timeout_ms_{0};
  std::atomic<int64_t> last_zxid_seen_{0};
  std::atomic<int64_t> refused_reply_bytes_{0};
  mutable std::mutex credentials_mu_;  // guards credentials_ and sasl_error_ for other threads
  std::string sasl_error_;             // why SASL failed
  SessionCredentials credentials_;
};

}  // namespace zk::client
