// SPDX-License-Identifier: Apache-2.0
// Connection: one TCP connection of a session and the timers that serve it.
// Shared (shared_ptr) by the session's reader, writer and pinger coroutines;
// whichever notices a failure calls close(), which wakes all of them.
// Not thread-safe: used on the session's executor only.
#pragma once

#include <chrono>
#include <memory>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

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

  // The socket's bytes go through `tls` once secure() set it up.
  void secure(std::shared_ptr<boost::asio::ssl::context> context) {
    tls_context_ = std::move(context);
    tls = std::make_unique<boost::asio::ssl::stream<boost::asio::ip::tcp::socket&>>(socket,
                                                                                    *tls_context_);
  }

  // The connection's reads and writes, over TLS when secured.
  boost::asio::awaitable<size_t> read_some(boost::asio::mutable_buffer buffer,
                                           boost::system::error_code& ec) {
    auto token = boost::asio::redirect_error(boost::asio::use_awaitable, ec);
    if (tls) co_return co_await tls->async_read_some(buffer, token);
    co_return co_await socket.async_read_some(buffer, token);
  }
  boost::asio::awaitable<size_t> read_exactly(boost::asio::mutable_buffer buffer,
                                              boost::system::error_code& ec) {
    auto token = boost::asio::redirect_error(boost::asio::use_awaitable, ec);
    if (tls) co_return co_await boost::asio::async_read(*tls, buffer, token);
    co_return co_await boost::asio::async_read(socket, buffer, token);
  }
  boost::asio::awaitable<size_t> write(boost::asio::const_buffer buffer,
                                       boost::system::error_code& ec) {
    auto token = boost::asio::redirect_error(boost::asio::use_awaitable, ec);
    if (tls) co_return co_await boost::asio::async_write(*tls, buffer, token);
    co_return co_await boost::asio::async_write(socket, buffer, token);
  }

  boost::asio::ip::tcp::socket socket;
  std::unique_ptr<boost::asio::ssl::stream<boost::asio::ip::tcp::socket&>> tls;
  boost::asio::steady_timer writer_wake;  // cancelled when requests are queued
  boost::asio::steady_timer ping_timer;
  boost::asio::steady_timer watchdog;  // bounds the TCP connect and handshake
  Clock::time_point last_recv = Clock::now();
  Clock::time_point last_send = Clock::now();
  std::chrono::milliseconds read_timeout{0};  // 2/3 of the negotiated timeout

 private:
  std::shared_ptr<boost::asio::ssl::context> tls_context_;  // kept while `tls` uses it
  bool open_ = true;
};

}  // namespace zk::client
