// SPDX-License-Identifier: Apache-2.0
// The client service: what a server does with each client connection
// (net::ConnectionHandler). The connect handshake (§2.3 of
// docs/wire-protocol.md): a new session goes to the write path as a
// createSession txn, a resumed one is checked against its password; then
// every request (§3, §4), in order per connection (the ReplyPipeline): reads
// answered from the tree, writes submitted to the write path, auth, sasl,
// setWatches, whoAmI and getEphemerals answered here. The four-letter words
// are answered from the status view (§12).
//
// A replica whose tree diverged from its leader's closes every new
// connection after its handshake frame, as Apache's "ZooKeeperServer not
// running". One without a quorum (in election) holds the handshake for up to
// the peer silence (ServerConfig::peer_silence_ms, the time an election after
// a lost leader takes) and takes it once it serves again (serving()), or
// then closes the connection: Apache closes at once, which sends the clients
// of a follower whose leader was lost on to the other servers, the lost
// leader among them, where a hung one keeps them until their connect
// timeout (a third of the session); held, they are served by the follower as
// soon as the new leader is elected.
//
// In read-only mode (read_only_mode.h) a client that allows a read-only
// server is taken at once (one held meanwhile is taken when the mode
// starts); its session, new or resumed, is served read-only until the
// replica serves again, when its connection is closed.
//
// Threading: the state thread, like every part it is given.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>

#include "libzk/wire/protocol.h"
#include "zkd/net/client_connection.h"
#include "zkd/server/audit_trail.h"
#include "zkd/server/client_registry.h"
#include "zkd/server/config.h"
#include "zkd/server/connection_throttle.h"
#include "zkd/server/four_letter_whitelist.h"
#include "zkd/server/large_requests.h"
#include "zkd/server/pending_write.h"
#include "zkd/server/read_only_mode.h"
#include "zkd/server/security_setup.h"
#include "zkd/server/server_stats.h"
#include "zkd/server/sessions.h"
#include "zkd/server/status_view.h"
#include "zkd/server/write_path.h"
#include "zkd/storage/clock.h"
#include "zkd/tree/database.h"
#include "zkd/view/connection_shedder.h"

namespace zkd::server {

class ClientService final : public net::ConnectionHandler,
                            public RequestHandler,
                            public admin::ConnectionShedder {
 public:
  // What the service works with; all of it outlives the service.
  struct Parts {
    const ServerConfig& config;
    const Security& security;  // SASL for clients
    tree::Database& db;
    ClientRegistry& clients;
    Sessions& sessions;
    WritePath& writes;
    StatusView& view;
    ServerStats& stats;
    const ReadOnlyMode& read_only;
    AuditTrail& audit;  // what each write carries for the audit log
    storage::Clock& clock;
    uint64_t seed;  // the connection throttle's random drops
  };
  explicit ClientService(Parts parts);

  // net::ConnectionHandler
  void opened(const std::shared_ptr<net::ClientConnection>& connection) override;
  std::string four_letter_word(net::ClientConnection& connection, std::string_view word,
                               std::string_view argument) override;
  void frame(net::ClientConnection& connection, std::string_view payload) override;
  // Gives a client certificate's subject its x509 id (and super when it is
  // X509AuthenticationProvider.superUser), as Apache's provider does.
  void secured(net::ClientConnection& connection) override;
  void closed(net::ClientConnection& connection) override;
  void rejected(std::string_view address) override;
  void throttled(net::ClientConnection& connection) override;
  void dropped_by_peer(net::ClientConnection& connection) override;
  void tls_handshake_started(net::ClientConnection& connection) override;
  void handshake_expired(net::ClientConnection& connection) override;

  // The replica serves again: the read-only sessions' connections close and
  // the handshakes held meanwhile are taken.
  void serving();
  // Read-only mode started: the held handshakes that allow it are taken.
  void read_only_started();

  // admin::ConnectionShedder: closes each client connection with
  // probability percentage/100 (the server's seeded draws), every one at 100.
  int shed_connections(int percentage) override;

  // Apache's connection_drop_probability (connection_throttle.h).
  double connection_drop_probability() const { return throttle_.drop_probability(); }

  // RequestHandler
  void handle(ClientState& client, std::string_view payload, Arrival arrival,
              int64_t started_ms) override;
  void session_created(ClientState* client, const PendingWrite& write) override;

 private:
  // The connection's TLS handshake ended (succeeded, or the connection closed).
  void tls_handshake_ended(ClientState& client);
  // Counts a connection without TLS once (non_mtls_*_conn_count).
  void count_non_mtls(ClientState& client);
  using SessionId = int64_t;

  // Why this server takes no client now, or empty when it does.
  std::string refusal() const;
  // A frame of `client`, as its phase wants it handled.
  void take_frame(ClientState& client, std::string_view payload);
  void handle_connect(ClientState& client, std::string_view payload);
  // The connection throttle lets a ConnectRequest for `session` through; if
  // not, the connection is closed (as Apache's ClientCnxnLimitException).
  bool admitted_by_throttle(ClientState& client, int64_t session);
  // In read-only mode: a new session of this server's alone, or a known one
  // resumed, served read-only.
  void connect_read_only(ClientState& client, const zk::wire::ConnectRequest& request,
                         int32_t timeout_ms);
  // Answers a ConnectRequest for an unknown session or with a wrong
  // password as Apache does (timeout 0), then closes.
  void refuse_session(ClientState& client, const zk::wire::ConnectRequest& request,
                      std::string_view why);
  // The session moves to `client`: a connection that had it is closed.
  void claim(ClientState& client, SessionId session);
  // Takes the held handshakes for which `take` is true.
  void take_held(const std::function<bool(const ClientState&)>& take);
  // The session is the connection's from now on: its ConnectResponse is sent.
  void establish(ClientState& client, SessionId session, int32_t timeout_ms, bool has_read_only);
  // A read-only session's request answered as Apache's read-only server
  // does: writes, sync and reconfig get NOTREADONLY, closeSession closes the
  // connection alone. False for what is answered as on any session (reads,
  // ping, auth, setWatches...).
  bool answer_read_only(ClientState& client, int32_t xid, zk::wire::OpCode op, int64_t started_ms);
  // An opcode of OpKind::kServer, each answered its own way; false (nothing
  // sent) for any other, which handle answers as unsupported.
  bool answer_server_op(ClientState& client, int32_t xid, zk::wire::OpCode op,
                        std::string_view body, int64_t started_ms);
  void answer_write(ClientState& client, int32_t xid, zk::wire::OpCode op, std::string_view body,
                    int64_t started_ms);
  // A request answered with `err` by an error txn; `body`: its record (the
  // audit log's).
  void answer_with_error_txn(ClientState& client, int32_t xid, zk::wire::OpCode op,
                             std::string_view body, zk::wire::Error err, int64_t started_ms);
  void answer_close_session(ClientState& client, int32_t xid, int64_t started_ms);
  // setWatches (101) or setWatches2 (105, `op`).
  void answer_set_watches(ClientState& client, int32_t xid, zk::wire::OpCode op,
                          std::string_view body, int64_t started_ms);
  // enforce.auth.enabled (§10.7): true when the connection has an id of an
  // enforced scheme (or nothing is enforced); else answers `xid` with
  // SESSIONCLOSEDREQUIRESASLAUTH, closes the connection and returns false.
  bool authentication_enforced(ClientState& client, int32_t xid);
  // SASL (102, §10.6): one step of the connection's exchange; a failed
  // exchange gets AUTHFAILED and a null token, then the connection closes.
  void answer_sasl(ClientState& client, int32_t xid, std::string_view body);
  void answer_auth(ClientState& client, int32_t xid, std::string_view body);
  void answer_get_ephemerals(ClientState& client, int32_t xid, std::string_view body,
                             int64_t started_ms);
  void answer_who_am_i(ClientState& client, int32_t xid, int64_t started_ms);

  const ServerConfig& config_;
  const Security& security_;
  tree::Database& db_;
  ClientRegistry& clients_;
  Sessions& sessions_;
  WritePath& writes_;
  StatusView& view_;
  ServerStats& stats_;
  const ReadOnlyMode& read_only_;
  AuditTrail& audit_;
  storage::Clock& clock_;
  FourLetterWhitelist whitelist_;
  ConnectionThrottle throttle_;
  std::mt19937_64 random_;
  // Throttled handshakes are logged at most once a second, with a count.
  int64_t throttle_logged_ms_ = 0;
  uint64_t throttled_unlogged_ = 0;
  LargeRequestBudget large_requests_;
  // How long a handshake is held while the replica is in election (0:
  // standalone, never held), and the connections holding one (their ids
  // increase with arrival).
  std::chrono::milliseconds hold_;
  std::set<net::ConnectionId> held_;
};

}  // namespace zkd::server
