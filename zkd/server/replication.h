// SPDX-License-Identifier: Apache-2.0
// A server as one replica of a Zab ensemble (docs/replication.md).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "zkd/peer/peer_transport.h"
#include "zkd/server/client_registry.h"
#include "zkd/server/config.h"
#include "zkd/server/read_only_mode.h"
#include "zkd/server/reconfig.h"
#include "zkd/server/recovery.h"
#include "zkd/server/replica_host.h"
#include "zkd/server/security_setup.h"
#include "zkd/server/session_credentials.h"
#include "zkd/server/sessions.h"
#include "zkd/server/snapshot_service.h"
#include "zkd/server/write_path.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"
#include "zkd/tree/database.h"
#include "zkd/zab/zab.h"

namespace zkd::server {

// The Zab core's configuration for this server, and the period of its
// timer. initLimit keeps Apache's meaning (initLimit x tickTime). A leader
// and a follower in broadcast may go without a word from each other for
// syncLimit x tickTime or zkd.peerTimeoutMs, whichever is shorter: the core's
// sync_limit. The core ticks ten times in the shorter of that silence and
// tickTime, and the leader pings at every tick, so a silence is noticed
// within a tenth of its limit and ten pings in a row are lost before it is.
// A leader about to build a snapshot for a learner (on the state thread)
// says so in its pings, and is then allowed syncLimit x tickTime.
struct ReplicaTiming {
  std::chrono::milliseconds tick{200};
  zab::Config config;
  // Core ticks between a follower's reports of its clients' sessions
  // (half a tickTime, as Apache's followers report at each of their pings).
  int touch_report_ticks = 5;
};
ReplicaTiming replica_timing(const ServerConfig& config);

// The session-password key of an ensemble without a session.key file: the
// same on every replica, whatever its configuration says (a server added by
// reconfig names more servers than the others). Like Apache's fixed secret
// it keeps no secret; copy one session.key into every dataDir/version-2 to
// make passwords secret.
SessionPasswords::Key ensemble_session_key();
// The key zkd 0.1 derived from zoo.cfg's server list instead: passwords it
// made are accepted too, so that sessions survive a rolling upgrade.
SessionPasswords::Key server_list_session_key(const ServerConfig& config);

// A server as one replica of a Zab ensemble: the replica host
// (replica_host.h) with the peer transport and the core's timer. It hands
// the host this server's writes and syncs by way of the write path
// (WritePath::replicate), and reaches the server's parts when the host
// reports: a committed txn applied (notifications, sessions, answers),
// the serving quorum lost or the leader changed (every client dropped), a
// failure the replica cannot carry on from (`fail`).
//
// Threading: the state thread; open() before the io_context runs.
class Replication final : ReplicaEvents {
 public:
  // What the replica works with; all of it outlives the replica.
  struct Parts {
    boost::asio::io_context& io;
    const ServerConfig& config;
    const Security& security;  // the quorum's TLS and SASL
    storage::Env& env;
    const StorageLayout& layout;
    tree::Database& db;
    ClientRegistry& clients;
    Sessions& sessions;
    WritePath& writes;
    SnapshotService& snapshots;
    std::function<void(const std::string&)> fail;  // stops the server
    std::function<void()> serving;                 // the replica serves (again)
    // Driven by the replica's status and timer: on after a grace without a
    // serving quorum (read_only_started then), off once it serves.
    ReadOnlyMode& read_only;
    std::function<void()> read_only_started;
    uint64_t seed;  // the Zab core's random draws (election timeouts), from main
    // Makes the peer links from this server's id, every server's address
    // and what receives: the simulator's; null: the PeerTransport over TCP
    // with zoo.cfg's TLS and SASL.
    std::function<std::unique_ptr<net::PeerLinks>(
        zab::ServerId self, std::vector<net::PeerAddress> peers, net::PeerLinks::Receive receive)>
        make_links;
  };
  // The replica over the recovered `db`, whose log after the snapshot at
  // `snapshot_zxid` is `records` (the write path's log is open). The
  // membership is zoo.cfg's, or `snapshot_config`'s when a reconfiguration
  // wrote it (this server is kept in it, as zoo.cfg names it: one being
  // added may hold a snapshot from before). A configuration the Zab core
  // refuses is a config error.
  static StatusOr<std::unique_ptr<Replication>> open(Parts parts,
                                                     std::vector<storage::LogRecord> records,
                                                     int64_t snapshot_zxid,
                                                     const std::string& snapshot_config = {});
  Replication(Parts parts, ReplicaTiming timing, zab::Bootstrap boot);
  Replication(const Replication&) = delete;
  Replication& operator=(const Replication&) = delete;

  // Connects to the peers and starts the core (its first vote and timer).
  boost::system::error_code start();
  void stop();
  const ReplicaHost& host() const { return host_; }
  // Leader: leadership to follower `to` (0: the most up to date one),
  // ReplicaHost::transfer.
  zab::Error transfer(zab::ServerId to);
  // rqld (ReplicaHost::request_leadership). False too under Apache's peer
  // protocol, which has no message for it.
  bool request_leadership();

 private:
  // ReplicaEvents
  void send(zab::Message message, std::string attachment) override;
  uint64_t queued_bytes(zab::ServerId peer) override;
  void logged(int64_t zxid) override;
  void abandon_snapshot() override;
  void applying(const tree::Txn& txn) override;
  void applied(tree::Txn txn, tree::ApplyResult result) override;
  void state_replaced(bool installed) override;
  void touched(const std::vector<std::pair<int64_t, int32_t>>& touches) override;
  void sync_done(uint64_t ticket) override { parts_.writes.sync_done(ticket); }
  void status_changed(const zab::Status& old, const zab::Status& now) override;
  void diverged() override;
  void failed(const std::string& why) override;
  void settled() override;

  // One period of the core's timer; a follower reports its clients' sessions.
  void tick();
  // Closes every client connection and forgets the writes in flight (the
  // replica stopped serving, or its leader changed).
  void drop_clients();
  // Every server this one may link with: zoo.cfg's and those the tree's
  // /zookeeper/config names.
  std::vector<net::PeerAddress> known_peers() const;
  // Apache's dynamic files (dynamic_config_file.h): with reconfigEnabled
  // and a zoo.cfg to rewrite, `servers` at `version`, committed, go to
  // zoo.cfg.dynamic.<version> and zoo.cfg points at it, unless a version
  // as new was written (or read at start). A failure is logged, as Apache
  // does, and the server goes on (the next commit, or the next time the
  // replica serves, tries again).
  void write_dynamic_config(const QuorumServers& servers, int64_t version);
  // The same for the membership the tree holds (committed: after a reconfig
  // txn is applied, a leader's snapshot installed, or a sync).
  void write_tree_membership();
  // The first established leader gives a version-0 membership the zxid its
  // epoch starts at as its version (Apache's ZOOKEEPER-1783; docs/zab.md):
  // once the core holds that version, /zookeeper/config takes it, with the
  // server lines of the core's members, as Apache's processReconfig at
  // UPTODATE does.
  void take_established_version();
  // zkd's peer links: TCP, with zoo.cfg's TLS (sslQuorum, portUnification)
  // and quorum SASL.
  std::unique_ptr<net::PeerLinks> tcp_links(std::vector<net::PeerAddress> peers,
                                            net::PeerLinks::Receive receive) const;

  Parts parts_;
  std::chrono::milliseconds tick_;
  uint64_t touch_report_ticks_;
  ReplicaHost host_;
  std::unique_ptr<net::PeerLinks> transport_;
  std::unique_ptr<storage::Timer> tick_timer_;
  uint64_t ticks_ = 0;
  bool stopped_ = false;
  // The newest membership version written to a dynamic file (or read from
  // one at start).
  int64_t dynamic_version_ = 0;
};

}  // namespace zkd::server
