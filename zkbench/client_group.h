// SPDX-License-Identifier: Apache-2.0
// ClientGroup: what the clients of a scenario that depend on each other
// (lock, barrier: a client that stops can leave the others waiting for
// ever) share: the figures of their steps, a count of their watch
// notifications, and the stop of all of them when one fails.
//
// Failing: fail() records the first failure and closes every session at once
// (pool_tasks.h: close_sessions_now), so that clients waiting on a watch wake
// (kClosed) and their next requests fail with CLOSING; those later errors,
// and the failures they cause, are effects of the first and not recorded.
//
// Requests: create() and remove() send again after CONNECTIONLOSS and
// OPERATIONTIMEOUT, and take the answer of a repeated request for what the
// first attempt may have done.
//
// Threads: every member may be called from any pool thread; failure() and
// the accessors from the owner's thread as well.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "toolkit/session_pool.h"
#include "zkbench/scenario.h"

namespace zk::bench {

class ClientGroup {
 public:
  using Clock = std::chrono::steady_clock;

  // Client i is session i of `pool`, which must outlive the group's use.
  ClientGroup(toolkit::SessionPool& pool, std::vector<std::string> steps);

  toolkit::SessionPool& pool() { return pool_; }
  StepFigures& steps() { return steps_; }
  // For WatchWait (watch_wait.h): counts the node events of the clients' watches.
  const std::shared_ptr<std::atomic<int64_t>>& notifications() const { return notifications_; }

  // A request of client `client` in step `step`, sent at `start`, failed
  // with `e`: records it, unless the group has failed already; true when it
  // is worth sending again (CONNECTIONLOSS, OPERATIONTIMEOUT: the session
  // reconnects), false when the client must stop.
  bool retry(size_t client, size_t step, Clock::time_point start, zk::wire::Error e);
  // Client `client` cannot go on, because of `why`. The first call stops the
  // group (see above); later calls are ignored.
  void fail(size_t client, const std::string& why);
  bool failed() const { return failed_.load(); }

  // Creates `path` (no data, `mode`) with `client`, the session of client
  // `c`, in step `step`, sending again while retry() says so. kOk once created, and on NODEEXISTS
  // after a retry (the first attempt did it) or always when `existing_ok`;
  // else the error that stops the client.
  zk::client::Task<zk::wire::Error> create(zk::client::Client& client, size_t c, size_t step,
                                           std::string path, zk::wire::CreateMode mode,
                                           bool existing_ok);
  // Deletes `path` the same way: kOk once deleted, and on NONODE after a
  // retry. (Both must run on client `c`'s thread.)
  zk::client::Task<zk::wire::Error> remove(zk::client::Client& client, size_t c, size_t step,
                                           std::string path);
  // The first failure, "client 3: create: NOAUTH"; empty when none.
  std::string failure() const;

 private:
  toolkit::SessionPool& pool_;
  StepFigures steps_;
  const std::shared_ptr<std::atomic<int64_t>> notifications_ =
      std::make_shared<std::atomic<int64_t>>(0);
  std::atomic<bool> failed_{false};
  mutable std::mutex mu_;  // guards failure_
  std::string failure_;
};

}  // namespace zk::bench
