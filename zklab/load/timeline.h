// SPDX-License-Identifier: Apache-2.0
// Timeline: what an experiment recorded, as time from its origin (the start
// of the load): completed requests in fixed buckets (load.h fills them) and
// events (a node killed or restarted, a role a watcher saw, the marks derived
// from them). Plain data, written as CSV (timeline_csv.h) and plotted as SVG
// (timeline_svg.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "libzk/wire/protocol.h"

namespace zk::lab {

// The requests that completed within one bucket of time.
struct LoadBucket {
  int64_t reads = 0;                          // successful reads
  int64_t writes = 0;                         // successful writes
  std::map<zk::wire::Error, int64_t> errors;  // failed requests (reads and writes), by code

  int64_t error_count() const;
  LoadBucket& operator+=(const LoadBucket& other);
};

enum class EventKind {
  kKill,       // `node` was killed (SIGKILL sent)
  kPause,      // `node` was paused (SIGSTOP sent)
  kIsolate,    // every peer link of `node` was cut
  kNewLeader,  // `node` is the first leader seen after the fault
  kRestart,    // `node` was started again
  kResume,     // `node` was resumed (SIGCONT sent)
  kHeal,       // the cuts were healed (`node`: the node that was isolated)
  kRejoin,     // `node`, back, serves again (`role`: as what)
  kRole,       // a watcher saw `node`'s role become `role`
  kTransfer,   // leader `node` was asked to hand leadership over (ydld)
};

// "kill", "pause", "isolate", "new leader", "restart", "resume", "heal",
// "rejoin", "role", "transfer".
std::string_view event_kind_name(EventKind kind);

struct TimelineEvent {
  std::chrono::microseconds at{0};  // from the timeline's origin
  EventKind kind = EventKind::kRole;
  int node = 0;
  std::string role;  // kRole and kRejoin: the node's role ("leader", "down", ...)
  // Not empty: the plot labels the marker "<mark>: <describe()>" (zkbench
  // paper's fig8 marks its events as the paper's Figure 8 does: "1", "4a").
  std::string mark = {};  // (an initializer: brace-initialised events may leave it out)
};

// "kill node 1", "new leader node 2", "restart node 1", "rejoin node 1
// (follower)", "node 3 not serving".
std::string describe(const TimelineEvent& event);

// True for the roles of a node that takes clients: leader, follower,
// observer, standalone (the names of server_status.h).
bool role_serves(std::string_view role);

struct Rates {
  double reads_per_s = 0;
  double writes_per_s = 0;
  double seconds = 0;  // of whole buckets measured; 0: none (then the rates mean nothing)
};

struct Timeline {
  std::chrono::milliseconds bucket{100};  // the width of every bucket
  std::vector<LoadBucket> buckets;        // buckets[i] covers [i*bucket, (i+1)*bucket)
  std::vector<TimelineEvent> events;      // in time order (add() keeps it)

  // The end of the last bucket.
  std::chrono::microseconds end() const;
  // Inserts `event` after every event at or before its time.
  void add(TimelineEvent event);
  // The first event of `kind` at or after `from` (of `node`, unless 0) whose
  // role satisfies `role_matches` (any when empty); nullptr when none.
  const TimelineEvent* first(EventKind kind, std::chrono::microseconds from, int node = 0,
                             bool (*role_matches)(std::string_view) = nullptr) const;
  // The rates over the buckets wholly inside [from, to).
  Rates rates(std::chrono::microseconds from, std::chrono::microseconds to) const;
  // Every bucket added up.
  LoadBucket totals() const;
};

}  // namespace zk::lab
