// SPDX-License-Identifier: Apache-2.0
#include "zkd/net/client_listener.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>
#include <utility>

#include "zkd/clock/real_time.h"
#include "zkd/log/log.h"
#include "zkd/net/listen.h"

namespace zkd::net {

namespace asio = boost::asio;

ClientListener::ClientListener(asio::io_context& io, ConnectionHandler& handler,
                               int32_t max_connections_per_address, int32_t max_connections,
                               ConnectionOptions options)
    : io_(io),
      handler_(handler),
      options_(options),
      limiter_(ConnectionLimiter::create(max_connections_per_address, max_connections)),
      acceptor_(io) {
  if (!options_.new_timer) {
    options_.new_timer = [&io] { return new_real_timer(io); };
  }
}

boost::system::error_code ClientListener::listen(const tcp::endpoint& endpoint) {
  return listen_at(acceptor_, endpoint);
}

ClientListener::tcp::endpoint ClientListener::local_endpoint() const {
  boost::system::error_code ec;
  auto endpoint = acceptor_.local_endpoint(ec);
  return ec ? tcp::endpoint{} : endpoint;
}

void ClientListener::start() {
  auto self = shared_from_this();
  asio::co_spawn(io_, accept_loop(), [self](std::exception_ptr e) {
    if (!e) return;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      log_error("client listener failed: ", ex.what());
    }
  });
}

void ClientListener::stop() {
  stopped_ = true;
  boost::system::error_code ec;
  acceptor_.close(ec);
  if (ec) log_warn("closing the client listener: ", ec.message());
}

asio::awaitable<void> ClientListener::accept_loop() {
  while (!stopped_) {
    auto [ec, socket] = co_await acceptor_.async_accept(asio::as_tuple(asio::use_awaitable));
    if (ec) {
      if (stopped_ || ec == asio::error::operation_aborted) break;
      // Running out of descriptors and similar: keep serving the clients we have.
      log_warn("accept failed: ", ec.message());
      continue;
    }
    admit(std::move(socket));
  }
}

void ClientListener::admit(tcp::socket socket) {
  boost::system::error_code ec;
  auto peer = unmapped(socket.remote_endpoint(ec));
  if (ec) {
    log_info("accepted connection vanished: ", ec.message());
    return;
  }
  std::string address = peer.address().to_string();
  ConnectionLimiter::Refusal why{};
  auto slot = limiter_->acquire(address, &why);
  if (!slot) {
    if (why == ConnectionLimiter::Refusal::kTotal) {
      log_warn("too many connections (maxCnxns ", limiter_->total(), "); closing the new one from ",
               address);
    } else {
      log_warn("too many connections from ", address, " (maxClientCnxns); closing the new one");
    }
    handler_.rejected(address);
    socket.close(ec);
    if (ec) log_warn("closing an excess connection: ", ec.message());
    return;
  }
  boost::system::error_code nodelay_ec;
  socket.set_option(tcp::no_delay(true), nodelay_ec);
  if (nodelay_ec) log_warn("cannot set TCP_NODELAY: ", nodelay_ec.message());
  auto connection = std::make_shared<TcpClientConnection>(std::move(socket), next_id_++, handler_,
                                                          options_, std::move(*slot));
  handler_.opened(connection);
  connection->start();
}

}  // namespace zkd::net
