// SPDX-License-Identifier: Apache-2.0
// A capped exponential back-off: the delays between the attempts of
// something that keeps failing (a peer link's dial, resolving this server's
// own listen address), starting at `first` and doubling up to `cap`; reset()
// once an attempt succeeded. It only counts: the caller waits, on a Timer of
// its Env's time (zkd/net/pause.h), so the delays run on simulated time in
// tests.
#pragma once

#include <algorithm>
#include <chrono>

namespace zkd::net {

class Backoff {
 public:
  // A cap below `first` is taken as `first`.
  Backoff(std::chrono::milliseconds first, std::chrono::milliseconds cap)
      : first_(first), cap_(std::max(first, cap)), next_(first_) {}

  // The delay to wait before the next attempt; the one after it is twice
  // as long, at most the cap.
  std::chrono::milliseconds next() {
    const std::chrono::milliseconds delay = next_;
    next_ = next_ > cap_ / 2 ? cap_ : next_ * 2;
    return delay;
  }
  // The delay next() will give, without moving on.
  std::chrono::milliseconds peek() const { return next_; }
  // An attempt succeeded: the next failure waits `first` again.
  void reset() { next_ = first_; }

 private:
  std::chrono::milliseconds first_;
  std::chrono::milliseconds cap_;
  std::chrono::milliseconds next_;
};

}  // namespace zkd::net
