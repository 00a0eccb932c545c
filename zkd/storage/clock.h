// SPDX-License-Identifier: Apache-2.0
// Time behind Env: the clocks a server reads and the timers it arms, so that
// the same server code runs on the real clocks (real_time.h, posix_env()) and
// in simulation (simulated_time.h, MemoryEnv), where time moves only when the
// simulator moves it. Nothing in zkd outside these implementations reads a
// clock or arms an Asio timer of its own (scripts/check-time-behind-env).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace zkd::storage {

// The clocks. Safe to read from any thread.
class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch: txn times, mtimes, what is printed.
  virtual int64_t wall_ms() = 0;
  // Microseconds on a clock that never goes back: deadlines, latencies,
  // uptime. Its origin is arbitrary.
  virtual int64_t steady_us() = 0;
  int64_t steady_ms() { return steady_us() / 1000; }
};

// One timer of the state thread. arm() calls `fire` once, `delay` from now,
// on the thread that drives the timer's time (real: the io_context's run();
// simulated: the simulator's advance()); arming again or cancel() drops the
// call pending, and so does destroying the timer. `fire` is never called from
// inside arm() or cancel().
class Timer {
 public:
  virtual ~Timer() = default;
  virtual void arm(std::chrono::milliseconds delay, std::function<void()> fire) = 0;
  virtual void cancel() = 0;
};

}  // namespace zkd::storage
