// SPDX-License-Identifier: Apache-2.0
// Waiting for a watch with a deadline, as every blocking recipe does: the
// wake-up channel between watch callbacks (run on the client's io thread,
// which must never block) and the recipe's waiting thread. Not a public
// header.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "libzk/client/sync_client.h"
#include "recipes/retry.h"

namespace zk::recipes::detail {

using Clock = std::chrono::steady_clock;
// No value: wait forever.
using Deadline = std::optional<Clock::time_point>;

// The time point `timeout` from now; none for no timeout.
inline Deadline deadline_after(std::optional<std::chrono::milliseconds> timeout) {
  if (!timeout) return std::nullopt;
  return Clock::now() + *timeout;
}

// Counts watch events and wakes the thread waiting for one. Shared between
// the waiting thread and callbacks that may outlive the wait.
struct Waker {
  std::mutex mu;
  std::condition_variable cv;
  uint64_t events = 0;  // guarded by mu
  bool stop = false;    // guarded by mu: the wait must end (e.g. own node lost)

  // Counts an event (and, with `stop_waiting`, ends every wait for good).
  void notify(bool stop_waiting = false);
  uint64_t seen();
  // Blocks until an event after `seen`, a stop, or the deadline. True when an
  // event (or a stop) came, false at the deadline.
  bool wait(uint64_t seen, const Deadline& deadline);
};

// A watch callback that notifies `waker` (if it still exists) on any event,
// session events (expiry, close) included.
zk::client::WatchCallback wake_on_event(const std::shared_ptr<Waker>& waker);

// The result of a read that set a one-shot watch, and the means to wait for
// that watch.
template <typename T>
struct WatchedRead {
  Result<T> result;
  std::shared_ptr<Waker> waker;

  // Blocks until the watch fires (any event, session events included) or the
  // deadline passes; false at the deadline.
  bool wait(const Deadline& deadline) { return waker->wait(0, deadline); }
};

// Calls `read(watch)` (e.g. zk.exists(path, std::move(watch))), retried on
// connection loss per `policy`, with a callback waking a fresh Waker; the
// watch of the attempt that succeeded is the one waited for (earlier
// attempts' watches wake the same Waker, which only makes the caller look
// again).
template <typename T, typename Read>
WatchedRead<T> watched_read(SyncClient& zk, const RetryPolicy& policy, Read&& read) {
  auto waker = std::make_shared<Waker>();
  auto result = with_retries<T>(zk, policy, [&] { return read(wake_on_event(waker)); });
  return WatchedRead<T>{std::move(result), std::move(waker)};
}

}  // namespace zk::recipes::detail
