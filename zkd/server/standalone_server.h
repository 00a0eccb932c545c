// A standalone zkd: one replica with no ensemble, serving the ZooKeeper 3.8
// client protocol on the configured client port.
//
// It owns the state machine (zkd::tree::Database), the session tracker and
// the client listener, and implements net::ConnectionHandler: the connect
// handshake (§2.3 of the wire reference), every request (§3, §4), session
// expiry on a tickTime timer (§2.4) and the four-letter words (§12).
// Standalone means every write is prepared and applied at once: zxid = last
// applied + 1, time = this machine's wall clock.
//
// Ordering: everything runs on the io_context's single thread, each request
// to completion before the next, so replies leave in request order per
// connection, and a write's notifications are queued (on every connection)
// before its reply.
//
// Threading and lifetime: construct, start(), stop() and destroy on the
// io_context's thread; the server must outlive io_context::run(), because its
// connections call back into it until they have ended.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "zkd/net/client_connection.h"
#include "zkd/net/client_listener.h"
#include "zkd/server/client_state.h"
#include "zkd/server/config.h"
#include "zkd/server/four_letter_format.h"
#include "zkd/server/four_letter_whitelist.h"
#include "zkd/server/latency_stats.h"
#include "zkd/server/session_credentials.h"
#include "zkd/server/session_tracker.h"
#include "zkd/tree/database.h"

namespace zkd::server {

class StandaloneServer final : public net::ConnectionHandler {
 public:
  StandaloneServer(boost::asio::io_context& io, ServerConfig config);
  ~StandaloneServer() override;
  StandaloneServer(const StandaloneServer&) = delete;
  StandaloneServer& operator=(const StandaloneServer&) = delete;

  // Binds the client port and starts serving; a bind error is returned.
  boost::system::error_code start();
  // The address the client port is bound to.
  boost::asio::ip::tcp::endpoint endpoint() const;
  // Stops accepting, closes every connection and stops the session timer,
  // so that io_context::run() can return.
  void stop();

  // net::ConnectionHandler
  void opened(const std::shared_ptr<net::ClientConnection>& connection) override;
  std::string four_letter_word(net::ClientConnection& connection, std::string_view word,
                               std::string_view argument) override;
  void frame(net::ClientConnection& connection, std::string_view payload) override;
  void closed(net::ClientConnection& connection) override;

 private:
  using SessionId = tree::SessionId;

  // handshake and sessions (standalone_server.cc)
  void handle_connect(ClientState& client, std::string_view payload);
  void expire_due_sessions();
  void schedule_tick();
  void end_session(SessionId session);

  // requests (request_dispatch.cc)
  void handle_request(ClientState& client, std::string_view payload);
  void answer_write(ClientState& client, int32_t xid, zk::wire::OpCode op, std::string_view body);
  void answer_with_error_txn(ClientState& client, int32_t xid, zk::wire::OpCode op,
                             zk::wire::Error err);
  void answer_close_session(ClientState& client, int32_t xid);
  void answer_set_watches(ClientState& client, int32_t xid, std::string_view body);
  void answer_auth(ClientState& client, int32_t xid, std::string_view body);
  void answer_get_ephemerals(ClientState& client, int32_t xid, std::string_view body);
  // Sends ReplyHeader + body and records the cons statistics.
  void reply(ClientState& client, int32_t xid, int64_t zxid, zk::wire::Error err,
             std::string_view body, std::string_view op_tag, int64_t started_ms);
  void send(ClientState& client, std::string frame);
  void deliver(const std::vector<tree::Notification>& notifications);
  tree::ApplyResult commit(const tree::Txn& txn);
  int64_t next_zxid() const { return db_.last_zxid() + 1; }

  // four-letter words (four_letter_commands.cc)
  std::string run_four_letter_word(std::string_view word, std::string_view argument);
  std::vector<ConnectionSnapshot> connection_snapshots() const;
  ServerSummary summary() const;

  boost::asio::io_context& io_;
  ServerConfig config_;
  FourLetterWhitelist whitelist_;
  tree::Database db_;
  SessionTracker tracker_;
  SessionIdGenerator session_ids_;
  SessionPasswords passwords_;
  std::shared_ptr<net::ClientListener> listener_;
  boost::asio::steady_timer tick_timer_;
  bool stopped_ = false;

  std::unordered_map<net::ConnectionId, ClientState> clients_;
  std::unordered_map<SessionId, net::ConnectionId> session_owner_;

  // Server statistics (srvr, mntr), reset by srst.
  LatencyStats latency_;
  uint64_t packets_received_ = 0;
  uint64_t packets_sent_ = 0;
  uint64_t auth_failures_ = 0;
  int64_t trace_mask_ = 306;  // Apache's default (gtmk)
  int64_t started_steady_ms_ = 0;
};

// Clocks the server reads: wall clock for txn times and cons, steady clock
// for session expiry and latency.
int64_t wall_clock_ms();
int64_t steady_clock_ms();

}  // namespace zkd::server
