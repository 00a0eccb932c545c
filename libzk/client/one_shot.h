// SPDX-License-Identifier: Apache-2.0
// OneShot<T>: a value set once by one party and awaited by one coroutine,
// with an optional deadline. Built on a steady_timer, so the waiter resumes
// through the executor (never inline inside set()).
//
// Not thread-safe: set() and wait_until() must run on the executor given at
// construction. Hold it in a shared_ptr when the setter may outlive the waiter.
#pragma once

#include <chrono>
#include <optional>
#include <utility>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace zk::client {

template <typename T>
class OneShot {
 public:
  explicit OneShot(boost::asio::any_io_executor executor)
      : timer_(std::move(executor), boost::asio::steady_timer::time_point::max()) {}

  // Stores the value (the first one wins) and wakes the waiter.
  void set(T value) {
    if (value_) return;
    value_ = std::move(value);
    timer_.cancel();
  }

  bool is_set() const { return value_.has_value(); }

  // Waits until the value is set or `deadline` passes; nullopt on timeout
  // (or when the waiting coroutine is cancelled).
  boost::asio::awaitable<std::optional<T>> wait_until(
      std::chrono::steady_clock::time_point deadline) {
    if (!value_) {
      timer_.expires_at(deadline);
      boost::system::error_code ec;
      co_await timer_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    }
    co_return value_;
  }

  // Waits until the value is set.
  boost::asio::awaitable<T> wait() {
    while (!value_) {
      timer_.expires_at(boost::asio::steady_timer::time_point::max());
      boost::system::error_code ec;
      co_await timer_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    }
    co_return std::move(*value_);
  }

 private:
  boost::asio::steady_timer timer_;
  std::optional<T> value_;
};

}  // namespace zk::client
