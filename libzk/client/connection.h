// SPDX-License-Identifier: Apache-2.0
// Connection: one TCP connection of a session and the timers that serve it.
// Shared (shared_ptr) by the session's reader, writer and pinger coroutines;
// whichever notices a failure calls close(), which wakes all of them.
// Not thread-safe: used on the session's executor only.
#pragma once

#include <chrono>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

namespace zk::client {

class Connection {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Connection(boost::asio::any_io_executor executor)
      : socket(executor),
        writer_wake(executor, boost::asio::steady_timer::time_point::max()),
        ping_timer(executor),
        watchdog(executor) {}

  bool is_open() const { return open_; }

  // Closes the socket and cancels every timer; idempotent.
  void close() {
    if (!open_) return;
    open_ = false;
    boost::system::error_code ignored;  // closing can only fail on a bad descriptor
    socket.close(ignored);
    writer_wake.cancel();
    ping_timer.cancel();
    watchdog.cancel();
  }

  boost::asio::ip::tcp::socket socket;
  boost::asio::steady_timer writer_wake;  // cancelled when requests are queued
  boost::asio::steady_timer ping_timer;
  boost::asio::steady_timer watchdog;  // bounds the TCP connect and handshake
  Clock::time_point last_recv = Clock::now();
  Clock::time_point last_send = Clock::now();
  std::chrono::milliseconds read_timeout{0};  // 2/3 of the negotiated timeout

 private:
  bool open_ = true;
};

}  // namespace zk::client
