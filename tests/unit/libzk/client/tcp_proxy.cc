// SPDX-License-Identifier: Apache-2.0
#include "tests/unit/libzk/client/tcp_proxy.h"

#include <array>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <future>
#include <list>
#include <mutex>
#include <thread>

#include <boost/asio.hpp>

namespace zk::client::testing {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using tcp = asio::ip::tcp;

namespace {

void rethrow_if_failed(std::exception_ptr e) {
  if (e) std::rethrow_exception(e);
}

struct Link {
  explicit Link(asio::any_io_executor ex) : client(ex), server(ex) {}
  void close() {
    boost::system::error_code ignored;  // closing a socket twice is harmless here
    client.close(ignored);
    server.close(ignored);
  }
  tcp::socket client;
  tcp::socket server;
};

awaitable<void> pump(std::shared_ptr<Link> link, tcp::socket& from, tcp::socket& to) {
  std::array<char, 16384> buf{};
  for (;;) {
    boost::system::error_code ec;
    size_t n =
        co_await from.async_read_some(asio::buffer(buf), asio::redirect_error(use_awaitable, ec));
    if (ec) break;
    co_await asio::async_write(to, asio::buffer(buf.data(), n),
                               asio::redirect_error(use_awaitable, ec));
    if (ec) break;
  }
  link->close();
}

}  // namespace

struct TcpProxy::Impl {
  explicit Impl(uint16_t target) : target_port(target) {}

  template <typename F>
  void apply(F f) {
    std::promise<void> done;
    asio::post(io, [&] {
      f();
      done.set_value();
    });
    done.get_future().wait();
  }

  awaitable<void> accept_loop() {
    for (;;) {
      auto link = std::make_shared<Link>(io.get_executor());
      boost::system::error_code ec;
      co_await acceptor.async_accept(link->client, asio::redirect_error(use_awaitable, ec));
      if (ec) co_return;
      if (refusing) {
        link->close();
        continue;
      }
      if (silent) {
        held.push_back(link);
        {
          std::lock_guard lock(held_mu);
          ++held_count;
        }
        held_cv.notify_all();
        continue;
      }
      co_await link->server.async_connect(
          tcp::endpoint(asio::ip::address_v4::loopback(), target_port),
          asio::redirect_error(use_awaitable, ec));
      if (ec) {
        link->close();
        continue;
      }
      ++forwarded;
      links.push_back(link);
      asio::co_spawn(io, pump(link, link->client, link->server), rethrow_if_failed);
      asio::co_spawn(io, pump(link, link->server, link->client), rethrow_if_failed);
    }
  }

  void drop_all() {
    for (auto& weak : links) {
      if (auto link = weak.lock()) link->close();
    }
    links.clear();
  }

  uint16_t target_port;
  asio::io_context io{1};
  tcp::acceptor acceptor{io, tcp::endpoint(asio::ip::address_v4::loopback(), 0)};
  std::list<std::weak_ptr<Link>> links;
  bool refusing = false;
  bool silent = false;
  std::list<std::shared_ptr<Link>> held;  // silent connections, closed by the destructor
  std::mutex held_mu;                     // guards held_count for waiting threads
  std::condition_variable held_cv;
  int held_count = 0;
  std::atomic<int> forwarded{0};
  std::thread thread;
};

TcpProxy::TcpProxy(uint16_t target_port) : impl_(std::make_unique<Impl>(target_port)) {
  asio::co_spawn(impl_->io, impl_->accept_loop(), rethrow_if_failed);
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

TcpProxy::~TcpProxy() {
  impl_->apply([impl = impl_.get()] {
    boost::system::error_code ignored;
    impl->acceptor.close(ignored);
    impl->drop_all();
    for (auto& link : impl->held) link->close();
    impl->held.clear();
  });
  impl_->io.stop();
  impl_->thread.join();
}

uint16_t TcpProxy::port() const { return impl_->acceptor.local_endpoint().port(); }

void TcpProxy::drop_all() {
  impl_->apply([impl = impl_.get()] { impl->drop_all(); });
}

void TcpProxy::set_refusing(bool refusing) {
  impl_->apply([impl = impl_.get(), refusing] {
    impl->refusing = refusing;
    if (refusing) impl->drop_all();
  });
}

void TcpProxy::set_silent(bool silent) {
  impl_->apply([impl = impl_.get(), silent] { impl->silent = silent; });
}

bool TcpProxy::wait_for_held(int count, std::chrono::milliseconds deadline) {
  std::unique_lock lock(impl_->held_mu);
  return impl_->held_cv.wait_for(lock, deadline, [&] { return impl_->held_count >= count; });
}

int TcpProxy::forwarded_connections() const { return impl_->forwarded.load(); }

}  // namespace zk::client::testing
