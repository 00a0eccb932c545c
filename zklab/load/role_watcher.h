// SPDX-License-Identifier: Apache-2.0
// RoleWatcher: a thread that asks every node its role at a fixed interval
// (through the poll function it is given, e.g. srvr to each node) and records
// each change as a kRole TimelineEvent. An event's time is when the poll that
// saw the change ended, so it is late by up to one interval plus a poll. The
// first poll records every node's initial role.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "zklab/load/timeline.h"

namespace zk::lab {

class RoleWatcher {
 public:
  using Clock = std::chrono::steady_clock;
  // Node id -> its role now ("leader", "follower", "down", ...). Called on
  // the watcher's thread only.
  using Poll = std::function<std::map<int, std::string>()>;
  using Roles = std::map<int, std::string>;

  // Starts polling at once; event times are from `origin`.
  RoleWatcher(Poll poll, Clock::time_point origin, std::chrono::milliseconds interval);
  // stop().
  ~RoleWatcher();
  RoleWatcher(const RoleWatcher&) = delete;
  RoleWatcher& operator=(const RoleWatcher&) = delete;

  // Ends the thread after its poll in progress. Idempotent.
  void stop();
  // The role changes seen so far, in time order.
  std::vector<TimelineEvent> events() const;
  // The roles the last poll saw (empty before the first).
  Roles roles() const;
  // Waits until `done` holds for the roles of a poll (the last one or a later
  // one), or until `until`; true in the first case.
  bool wait_until(const std::function<bool(const Roles&)>& done, Clock::time_point until) const;

 private:
  void run();

  const Poll poll_;
  const Clock::time_point origin_;
  const std::chrono::milliseconds interval_;
  mutable std::mutex mu_;  // guards what follows
  mutable std::condition_variable cv_;
  bool stop_ = false;
  Roles roles_;
  std::vector<TimelineEvent> events_;
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace zk::lab
