// SPDX-License-Identifier: Apache-2.0
// Server's state as one replica of a Zab ensemble (internal to zkd/server;
// the behaviour is described in server.h and docs/replication.md).
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "zkd/net/peer_transport.h"
#include "zkd/server/config.h"
#include "zkd/server/forwarded_writes.h"
#include "zkd/server/replica_host.h"
#include "zkd/server/server.h"
#include "zkd/server/session_credentials.h"
#include "zkd/zab/zab.h"

namespace zkd::server {

// The Zab core's configuration for this server. The core ticks ten times per
// tickTime, so that initLimit and syncLimit keep Apache's meaning (in
// tickTime units) while elections and pings run at a finer grain.
struct ReplicaTiming {
  std::chrono::milliseconds tick{200};
  zab::Config config;
};
ReplicaTiming replica_timing(const ServerConfig& config);

// The session-password key of an ensemble without a session.key file: every
// replica derives the same one from the server list. Like Apache's fixed
// secret it keeps no secret from whoever knows the configuration; copy one
// session.key into every dataDir/version-2 to make passwords secret.
SessionPasswords::Key ensemble_session_key(const ServerConfig& config);

// The ensemble side of a Server: the replica host (replica_host.h) with the
// peer transport and the core's timer, this server's writes in flight
// through the leader, and the events by which the host reaches the clients.
struct Server::Replication final : ReplicaEvents {
  Replication(Server& server, ReplicaTiming timing, zab::Bootstrap boot);

  // ReplicaEvents
  void send(zab::Message message, std::string attachment) override;
  void logged(int64_t zxid) override;
  void abandon_snapshot() override;
  void applying(const tree::Txn& txn) override;
  void applied(tree::Txn txn, tree::ApplyResult result) override;
  void state_replaced(bool /*installed*/) override {}
  void touched(const std::vector<std::pair<int64_t, int32_t>>& touches) override;
  void sync_done(uint64_t ticket) override { writes.sync_done(ticket); }
  void status_changed(const zab::Status& old, const zab::Status& now) override;
  void diverged() override;
  void failed(const std::string& why) override;
  void settled() override;
  int64_t wall_clock_ms() override;

  Server& server;
  std::chrono::milliseconds tick;
  ReplicaHost host;
  std::unique_ptr<net::PeerTransport> transport;
  boost::asio::steady_timer tick_timer;
  uint64_t ticks = 0;
  ForwardedWrites writes;
  // Follower: sessions its clients used since the last report, with their
  // timeouts; reported to the leader twice per tickTime.
  std::unordered_map<int64_t, int32_t> touched_sessions;
};

}  // namespace zkd::server
