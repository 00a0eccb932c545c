// SPDX-License-Identifier: Apache-2.0
// Time behind interfaces: the clocks zkd reads and the timers it arms, so that
// the same code runs on the real clocks (real_time.h) and in simulation
// (zkd/storage/simulated_time.h, MemoryEnv), where time moves only when the
// simulator moves it. The server gets both from its storage::Env
// (Env::clock(), Env::new_timer()); the real network (zkd/net, zkd/peer) and
// the logger (zkd/log) are handed them. Nothing in zkd outside the real and
// simulated implementations reads a clock or arms an Asio timer of its own
// (scripts/check-time-behind-env).
//
// Interfaces only, standard library only: zkd::clock's real_time.cc is the
// one place that reads the system's clocks.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

namespace zkd {

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

// Makes timers of one thread, the way a part that arms many (one per
// connection) is handed its time: bound to the thread's io_context, e.g.
// [&env, &io] { return env.new_timer(io); } or new_real_timer(io).
using TimerFactory = std::function<std::unique_ptr<Timer>()>;

}  // namespace zkd
