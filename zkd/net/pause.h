// SPDX-License-Identifier: Apache-2.0
// Pause: a coroutine's wait of a given time on a zkd::Timer (zkd/clock/clock.h)
// handed in, so that the time comes from whoever made the timer (the server's
// Env, or the real clock by default) rather than from an Asio timer of the
// caller's own: a dialer's back-off, an acceptor's retry.
//
// Contract: one wait() at a time. wait() returns `delay` after it began, or
// as soon as cancel() is called during it; a cancel() while no wait() runs
// does nothing to the next one. Threading: the thread the timer fires on,
// which is the executor's (for new_real_timer(io), io's run()).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <memory>
#include <utility>

#include "zkd/clock/clock.h"
#include "zkd/net/wake_up.h"

namespace zkd::net {

class Pause {
 public:
  Pause(std::unique_ptr<Timer> timer, const boost::asio::any_io_executor& executor)
      : timer_(std::move(timer)), done_(executor) {}
  Pause(const Pause&) = delete;
  Pause& operator=(const Pause&) = delete;

  boost::asio::awaitable<void> wait(std::chrono::milliseconds delay) {
    // The timer drops its call when cancelled or destroyed: `this` is safe.
    timer_->arm(delay, [this] { done_.notify(); });
    co_await done_.wait();
  }

  void cancel() {
    timer_->cancel();
    done_.notify();
  }

 private:
  std::unique_ptr<Timer> timer_;
  WakeUp done_;
};

}  // namespace zkd::net
