// SPDX-License-Identifier: Apache-2.0
// Simulated time (clock.h): clocks that stand still until advance() moves
// them, timers that fire inside advance() at their deadlines, in deadline
// order (ties in the order they were armed), and randomness drawn from a
// seed. Deterministic: the same calls give the same firings and numbers.
//
// Threading: the clocks may be read from any thread; timers are armed,
// cancelled and fired on the thread that calls advance(). Timers must not
// outlive their SimulatedTime.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "zkd/storage/clock.h"

namespace zkd::storage {

class SimulatedTime final : public Clock {
 public:
  // The wall clock starts at `wall_start_ms` (default: 2023-11-14), the
  // steady clock at 1 s (not 0, so that a zero time stays "never").
  explicit SimulatedTime(uint64_t seed = 1, int64_t wall_start_ms = 1'700'000'000'000);
  SimulatedTime(const SimulatedTime&) = delete;
  SimulatedTime& operator=(const SimulatedTime&) = delete;

  int64_t wall_ms() override;
  int64_t steady_us() override;

  std::unique_ptr<Timer> new_timer();
  // Moves both clocks forward by `by`, stopping at each armed deadline on the
  // way to fire its timer (a timer armed by a firing, due within `by`, fires
  // too).
  void advance(std::chrono::microseconds by);
  // Advances to the earliest armed deadline and fires what is due there;
  // false when no timer is armed.
  bool advance_to_next();
  // The earliest armed deadline, on the steady clock (µs).
  std::optional<int64_t> next_deadline() const;
  // Timers armed and not yet fired or cancelled.
  size_t armed() const;
  // The next number of the seeded sequence (SplitMix64).
  uint64_t random();

 private:
  class SimTimer;
  using Key = std::pair<int64_t, uint64_t>;  // deadline (µs), arm order
  Key arm(std::function<void()> fire, std::chrono::milliseconds delay);
  void cancel(const Key& key);
  // Fires every timer due at or before `until`, moving the clocks to each.
  void run_until(int64_t until_us);

  mutable std::mutex mu_;
  int64_t steady_us_ = 1'000'000;
  int64_t wall_offset_us_;  // wall = steady + offset
  uint64_t next_order_ = 0;
  uint64_t random_state_;
  std::map<Key, std::function<void()>> due_;
};

}  // namespace zkd::storage
