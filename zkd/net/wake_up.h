// SPDX-License-Identifier: Apache-2.0
// WakeUp: an event one coroutine parks on until another handler signals it,
// as the network's readers and writers wait for work (bytes queued, the read
// gate reopened, a link closed).
//
// Not a clock: it is built on an Asio steady_timer only because that is
// Asio's cheapest awaitable another handler can complete. The timer's
// deadline is always time_point::max() and notify() cancels the wait, so no
// time is read or waited for. That is why scripts/check-time-behind-env
// allows this file by name; nothing here may arm a real deadline. Deadlines
// are zkd::Timers (zkd/clock/clock.h) handed in, or a Pause (pause.h) on one.
//
// Contract: one waiter at a time (a second wait() ends the first). A notify()
// with no waiter is lost, so a waiter checks its condition just before wait()
// (on the same thread, with nothing in between to run a handler) and again
// after it returns; wait() may also return spuriously (destruction of the
// WakeUp, a second waiter). Threading: everything on the executor's thread.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace zkd::net {

class WakeUp {
 public:
  explicit WakeUp(const boost::asio::any_io_executor& executor) : event_(executor) {}
  WakeUp(const WakeUp&) = delete;
  WakeUp& operator=(const WakeUp&) = delete;

  // Returns once notify() is called (see the contract above). Never throws
  // for the wake-up itself.
  boost::asio::awaitable<void> wait() {
    event_.expires_at(boost::asio::steady_timer::time_point::max());
    auto [ec] = co_await event_.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    (void)ec;  // operation_aborted is the wake-up signal
  }

  // Ends the current wait(), if any.
  void notify() { event_.cancel(); }

 private:
  boost::asio::steady_timer event_;  // never expires: only cancelled
};

}  // namespace zkd::net
