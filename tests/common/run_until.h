// SPDX-License-Identifier: Apache-2.0
// run_until: runs an io_context, on the calling thread, until a condition
// holds or a deadline passes. For tests that drive a part's state thread
// themselves: the condition is looked at after every handler that ran, so
// the test synchronises on the event it waits for; the deadline is only a
// bound on how long a failing test takes, never a wait for something to
// happen.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <thread>

namespace zk::test {

// The bound a passing test never reaches: generous, for a busy machine.
inline constexpr std::chrono::seconds kRunUntilDeadline{10};

// Runs `io` until `done()` holds, or `deadline` from now; whether it holds.
// A stopped io_context (one without work that ran dry) is restarted, so
// that handlers posted from other threads (a log thread, a snapshot thread)
// still run; `io` must not be run by another thread meanwhile.
inline bool run_until(boost::asio::io_context& io, const std::function<bool()>& done,
                      std::chrono::milliseconds deadline = kRunUntilDeadline) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return false;
    if (io.stopped()) io.restart();
    // At most a short slice: a condition another thread makes true is
    // looked at again soon even when no handler runs here.
    if (io.run_one_for(std::chrono::milliseconds(20)) == 0 && io.stopped()) {
      std::this_thread::yield();  // nothing to run: let the other threads post
    }
  }
  return true;
}

}  // namespace zk::test
