// SPDX-License-Identifier: Apache-2.0
// Server's state as one replica of a Zab ensemble (internal to zkd/server;
// the behaviour is described in server.h and docs/replication.md).
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "zkd/net/peer_transport.h"
#include "zkd/server/config.h"
#include "zkd/server/digest_check.h"
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

// srvr's Mode for a replica: "leader", "follower", "observer" ("looking"
// is never shown: a looking replica does not serve).
const char* replica_mode(zab::Role role);

struct Server::Replication {
  Replication(boost::asio::io_context& io, ReplicaTiming timing, zab::Bootstrap boot)
      : tick(timing.tick), core(std::move(timing.config), std::move(boot)), tick_timer(io) {}

  std::chrono::milliseconds tick;
  zab::Zab core;
  std::unique_ptr<net::PeerTransport> transport;
  zab::Status status;
  boost::asio::steady_timer tick_timer;
  uint64_t ticks = 0;
  bool in_ready = false;  // process_ready() is running (it must not nest)

  // Tickets number this server's writes and syncs in the ReplyPipeline, in
  // arrival order; the pipeline releases everything up to done_upto.
  uint64_t last_ticket = 0;
  uint64_t done_upto = 0;
  std::set<uint64_t> done;  // finished tickets above done_upto

  // This server's writes on their way through the leader, in order. A
  // committed txn whose session and xid match the front is ours.
  struct Forwarded {
    uint64_t ticket = 0;
    int64_t session = 0;
    int32_t xid = 0;
    WriteRequest::Kind kind = WriteRequest::Kind::kOp;
  };
  std::deque<Forwarded> forwarded;
  std::unordered_map<int64_t, size_t> forwarded_sessions;  // entries of `forwarded` per session
  // What answers a finished write ticket: the applied txn and its result; an
  // empty optional when the write was lost (its connection gets closed).
  std::unordered_map<uint64_t, std::optional<std::pair<tree::Txn, tree::Response>>> completed;

  // Follower: sessions its clients used since the last report, with their
  // timeouts; reported to the leader twice per tickTime.
  std::unordered_map<int64_t, int32_t> touched;

  // The snapshots that Snap messages carried, by zxid, until installed.
  std::map<zab::Zxid, std::string> incoming_snapshots;

  // Tree digests (docs/replication.md, "Tree digest"). Leader: txns applied
  // since it last sent its digest. Learner: its digests against the
  // leader's; `diverged` once they differed (then it serves no client and
  // never leads).
  uint64_t applied_since_digest = 0;
  DigestCheck digests;
  bool diverged = false;
};

}  // namespace zkd::server
