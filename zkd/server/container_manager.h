// SPDX-License-Identifier: Apache-2.0
// The container manager's rules that do not need the tree (Apache's
// ContainerManager, §6.4 of docs/wire-protocol.md): how often to look for
// empty containers and expired TTL nodes, and how many deletions to start.
//
// Every check_interval() the leader (or a standalone server; never a
// follower or observer) asks the tree for candidates
// (tree::Database::sweep_candidates) and deletes each with a deleteContainer
// (20) request from session 0, replicated like any write; admit() keeps the
// deletions to at most maxPerMinute in any minute (Apache spaces them
// 60000 / maxPerMinute ms apart; zkd starts up to the budget at once and
// leaves the rest to later checks). Not thread-safe; times are steady-clock
// milliseconds.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace zkd::server {

// zoo.cfg's znode.container.* keys (ServerConfig holds their defaults).
struct ContainerOptions {
  int64_t check_interval_ms = 0;  // checkIntervalMs, > 0
  int64_t max_per_minute = 0;     // maxPerMinute, > 0
  int64_t max_never_used_ms = 0;  // maxNeverUsedIntervalMs; 0: never-used containers stay
};

class ContainerManager {
 public:
  explicit ContainerManager(const ContainerOptions& options)
      : check_interval_ms_(options.check_interval_ms),
        max_per_minute_(options.max_per_minute),
        max_never_used_ms_(options.max_never_used_ms) {}

  std::chrono::milliseconds check_interval() const {
    return std::chrono::milliseconds(check_interval_ms_);
  }
  // znode.container.maxNeverUsedIntervalMs (0: never-used containers stay).
  int64_t max_never_used_ms() const { return max_never_used_ms_; }

  // The first of `candidates` to delete at `now_ms`: as many as the
  // deletions admitted in the minute before leave room for; they count as
  // admitted now.
  std::vector<std::string> admit(std::vector<std::string> candidates, int64_t now_ms);

 private:
  int64_t check_interval_ms_;
  int64_t max_per_minute_;
  int64_t max_never_used_ms_;
  std::deque<std::pair<int64_t, int64_t>> admitted_;  // (time, count), oldest first
  int64_t admitted_in_window_ = 0;
};

}  // namespace zkd::server
