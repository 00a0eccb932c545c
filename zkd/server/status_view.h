// SPDX-License-Identifier: Apache-2.0
// The status view: what the four-letter words (§12 of docs/wire-protocol.md),
// the admin server and the Prometheus endpoint read from a running server
// (admin::ServerView), gathered from the server's parts; the text comes from
// four_letter_format.h. It owns nothing: Sources names what it reads, all of
// it owned by the Server and used on the state thread only. Besides reading,
// it resets the statistics (srst, crst) and sets the trace mask (stmk).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "zkd/net/client_connection.h"
#include "zkd/server/client_state.h"
#include "zkd/server/config.h"
#include "zkd/server/read_only_mode.h"
#include "zkd/server/replica_host.h"
#include "zkd/server/server_stats.h"
#include "zkd/server/session_tracker.h"
#include "zkd/server/snapshot_service.h"
#include "zkd/storage/clock.h"
#include "zkd/tree/database.h"
#include "zkd/view/four_letter_format.h"
#include "zkd/view/server_view.h"

namespace zkd::server {

class StatusView final : public admin::ServerView {
 public:
  struct Sources {
    const ServerConfig& config;
    const tree::Database& db;
    // Mutable for crst, which resets each connection's statistics.
    std::unordered_map<net::ConnectionId, ClientState>& clients;
    const SessionTracker& tracker;
    const SnapshotService& snapshots;
    ServerStats& stats;
    std::function<size_t()> writes_pending;  // writes waiting for the disk or the leader
    std::function<double()> connection_drop_probability;  // the connection throttle's
    std::function<uint16_t()> client_port;                // the bound client port
    std::function<const ReplicaHost*()> replica;          // null when standalone
    const ReadOnlyMode& read_only;
    // ydld: the leader hands leadership to its most up-to-date follower
    // (ReplicaHost::transfer); the answer to send. Null when standalone.
    std::function<std::string()> yield_leadership;
    // rqld, csnp, lgif (keeper_words.h): the answer to the word.
    std::function<std::string(std::string_view word)> keeper_word;
    storage::Clock& clock;  // uptime, dates of the session buckets
  };
  explicit StatusView(Sources sources);

  // A four-letter word, already whitelisted, answered. A replica that does
  // not serve (nor reads, in read-only mode) answers only ruok, isro, envi,
  // gtmk and stmk.
  std::string four_letter_word(std::string_view word, std::string_view argument);

  // admin::ServerView
  bool serving() const override;
  bool read_only() const override;
  bool diverged() const override;
  ServerSummary summary() const override;
  std::vector<ConnectionSnapshot> connections() const override;
  std::vector<MonitorEntry> monitor() const override;
  ConfSnapshot conf() const override;
  std::vector<std::pair<std::string, std::string>> environment() const override;
  DirsSnapshot dirs() const override;
  DumpSnapshot dump() const override;
  WatchCounts watch_counts() const override;
  WatchesBySession watches_by_session() const override;
  WatchesByPath watches_by_path() const override;
  std::optional<Leader> leader() const override;
  std::map<int64_t, std::string> voting_view() const override;
  SnapshotInfo last_snapshot() const override;
  std::vector<std::pair<int64_t, int64_t>> digests() const override;
  std::string initial_configuration() const override;
  int64_t trace_mask() const override { return sources_.stats.trace_mask; }
  void set_trace_mask(int64_t mask) override { sources_.stats.trace_mask = mask; }
  std::string yield_leadership() override;
  void reset_server_stats() override;
  void reset_connection_stats() override;

 private:
  const ReplicaHost* replica() const { return sources_.replica(); }
  std::vector<ConnectionSnapshot> connection_snapshots() const;

  Sources sources_;
};

}  // namespace zkd::server
