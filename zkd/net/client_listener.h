// SPDX-License-Identifier: Apache-2.0
// The client port: accepts TCP connections, applies maxClientCnxns per client
// IP (an excess socket is closed at once, §3.6), and starts a ClientConnection
// for every other one, announced to the handler with opened().
//
// Ownership: create with std::make_shared; the accept coroutine keeps the
// listener alive until stop() (or an accept error) ends it. The handler must
// outlive the listener and every connection it started.
// Threading: call everything on the io_context's thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>
#include <memory>

#include "zkd/net/connection_limiter.h"
#include "zkd/net/tcp_client_connection.h"

namespace zkd::net {

class ClientListener : public std::enable_shared_from_this<ClientListener> {
 public:
  using tcp = boost::asio::ip::tcp;

  // Without options.new_timer, the connections' handshake deadlines are real
  // timers on `io` (zkd/clock/real_time.h).
  // `max_connections_per_address` (maxClientCnxns) and `max_connections`
  // (maxCnxns): ConnectionLimiter's limits, 0 for none.
  ClientListener(boost::asio::io_context& io, ConnectionHandler& handler,
                 int32_t max_connections_per_address, int32_t max_connections,
                 ConnectionOptions options);

  // Binds and listens; the error (e.g. address in use) is returned, not thrown.
  boost::system::error_code listen(const tcp::endpoint& endpoint);
  // The bound address (useful after binding port 0).
  tcp::endpoint local_endpoint() const;
  // Starts accepting; requires a successful listen().
  void start();
  // Stops accepting. Connections already open are not touched.
  void stop();

 private:
  boost::asio::awaitable<void> accept_loop();
  void admit(tcp::socket socket);

  boost::asio::io_context& io_;
  ConnectionHandler& handler_;
  ConnectionOptions options_;
  std::shared_ptr<ConnectionLimiter> limiter_;
  tcp::acceptor acceptor_;
  ConnectionId next_id_ = 1;
  bool stopped_ = false;
};

}  // namespace zkd::net
