// SPDX-License-Identifier: Apache-2.0
// What the server keeps about one client connection: the connection itself,
// its session (once the handshake is done) and the per-connection statistics
// cons prints. Internal to zkd/server.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "zkd/net/client_connection.h"
#include "zkd/sasl/sasl_server.h"
#include "zkd/tree/auth_ids.h"
#include "zkd/view/latency_stats.h"

namespace zkd::server {

struct ClientState {
  enum class Phase {
    kHandshake,    // waiting for the ConnectRequest
    kConnecting,   // createSession is on its way to the disk; later frames wait
    kEstablished,  // bound to session_id
    kClosing,      // answered for the last time; further frames are ignored
  };

  std::shared_ptr<net::ClientConnection> connection;
  Phase phase = Phase::kHandshake;
  int64_t session_id = 0;
  int32_t timeout_ms = 0;              // negotiated on this connection
  bool connect_has_read_only = false;  // the ConnectRequest carried the readOnly byte
  bool tls_handshaking = false;        // counted in outstanding_tls_handshake
  bool counted_as_non_mtls = false;    // counted in non_mtls_*_conn_count
  // The session is served read-only (read_only_mode.h): reads from this
  // replica's tree, NOTREADONLY for the rest, nothing sent to the quorum.
  bool read_only = false;
  // The ConnectRequest, kept while the replica is in election
  // (ClientService::serving), and the frames that came behind it; empty
  // otherwise.
  std::string held_connect;
  std::vector<std::string> held_frames;
  // closeSession was received: later frames are ignored; the ones before it
  // are still answered, then the connection closes.
  bool close_requested = false;
  int64_t opened_wall_ms = 0;
  // Who the connection has proved to be (authentication.h): its ip id from
  // the accept, then what its AuthPackets added. Reads and writes are checked
  // against these.
  tree::AuthIds auth;
  // The SASL exchange under way or done, from the first SASL request on.
  std::unique_ptr<sasl::SaslExchange> sasl;

  // cons statistics (Apache's ServerCnxn), reset by crst.
  std::string last_operation = "NA";
  int64_t last_cxid = -1;
  int64_t last_zxid = -1;
  int64_t last_response_wall_ms = 0;
  LatencyStats latency;

  void reset_stats() {
    last_operation = "NA";
    last_cxid = -1;
    last_zxid = -1;
    last_response_wall_ms = 0;
    latency.reset();
    if (connection) connection->reset_stats();
  }
};

}  // namespace zkd::server
