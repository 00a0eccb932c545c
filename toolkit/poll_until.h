// SPDX-License-Identifier: Apache-2.0
// poll_until: wait, with a deadline, for a condition that has no event of its
// own to wait on (another process's entry in /proc, a file's contents, a
// server's answer to a question asked again). Where there is an event (a
// pidfd, a socket, a watch, a condition variable), wait for the event instead.
//
// Contract: `condition` is called at once, then again every `interval` until
// it returns true or the deadline has passed; the wait before a call is cut
// to the time left, so the last call comes at the deadline (a condition that
// turned true by then is seen) and the function returns at most one call of
// `condition` after it. True when the condition held. A deadline already
// passed calls `condition` once. The interval is a pace, not a bound: a call
// that takes longer than it is followed by the next at once. Sleeps on the
// calling thread; no other thread is involved.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

namespace zk::toolkit {

template <typename Condition>
bool poll_until(Condition&& condition, std::chrono::steady_clock::time_point deadline,
                std::chrono::steady_clock::duration interval) {
  for (;;) {
    if (condition()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(std::min(interval, deadline - now));
  }
}

// The same with the deadline `timeout` from now.
template <typename Condition, typename Rep, typename Period>
bool poll_until(Condition&& condition, std::chrono::duration<Rep, Period> timeout,
                std::chrono::steady_clock::duration interval) {
  return poll_until(std::forward<Condition>(condition),
                    std::chrono::steady_clock::now() +
                        std::chrono::ceil<std::chrono::steady_clock::duration>(timeout),
                    interval);
}

}  // namespace zk::toolkit
