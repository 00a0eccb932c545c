// SPDX-License-Identifier: Apache-2.0
// What the admin server (admin_commands.h) and the Prometheus endpoint
// (prometheus_text.h) read from a running server: the same snapshots the
// four-letter words print (zkd/view/four_letter_format.h), so that every
// figure has one source. zkd::server::StatusView implements it.
//
// Threading: every call happens on the server's state thread (the
// io_context thread); the results are copies the caller owns.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "zkd/view/four_letter_format.h"

namespace zkd::admin {

class ServerView {
 public:
  struct Leader {
    bool is_leader = false;
    int64_t leader_id = 0;  // 0: not known
    std::string leader_ip;  // "" when not known
  };
  struct SnapshotInfo {
    int64_t zxid = -1;       // -1: none
    int64_t timestamp = -1;  // the file's modification time, seconds since the epoch
  };

  virtual ~ServerView() = default;

  // False while an ensemble replica has no quorum: Apache's commands that
  // need a running server then answer with an error.
  virtual bool serving() const = 0;
  // In read-only mode (read_only_mode.h): not serving, yet answering reads.
  virtual bool read_only() const = 0;
  // A learner whose tree digest differed from its leader's: it serves no
  // client from then on, whatever serving() says. False when standalone.
  virtual bool diverged() const = 0;
  virtual server::ServerSummary summary() const = 0;
  virtual std::vector<server::ConnectionSnapshot> connections() const = 0;
  virtual std::vector<server::MonitorEntry> monitor() const = 0;
  virtual server::ConfSnapshot conf() const = 0;
  virtual std::vector<std::pair<std::string, std::string>> environment() const = 0;
  virtual server::DirsSnapshot dirs() const = 0;
  virtual server::DumpSnapshot dump() const = 0;
  virtual server::WatchCounts watch_counts() const = 0;
  virtual server::WatchesBySession watches_by_session() const = 0;
  virtual server::WatchesByPath watches_by_path() const = 0;
  // Standalone: nullopt.
  virtual std::optional<Leader> leader() const = 0;
  // server id -> "host:quorumPort:electionPort:participant|observer[;clientAddress:clientPort]";
  // empty when standalone.
  virtual std::map<int64_t, std::string> voting_view() const = 0;
  virtual SnapshotInfo last_snapshot() const = 0;
  // The tree digest log (hash): (zxid, digest as Java's long prints it),
  // oldest first; zkd's own digest function (zkd/tree/digest.h), not
  // comparable with Apache's.
  virtual std::vector<std::pair<int64_t, int64_t>> digests() const = 0;
  // zoo.cfg as read at start-up.
  virtual std::string initial_configuration() const = 0;

  virtual int64_t trace_mask() const = 0;
  virtual void set_trace_mask(int64_t mask) = 0;
  // The leader hands leadership to its most up-to-date follower (ydld);
  // the four-letter word's answer, whether it did or why not.
  virtual std::string yield_leadership() = 0;
  virtual void reset_server_stats() = 0;
  virtual void reset_connection_stats() = 0;
};

}  // namespace zkd::admin
