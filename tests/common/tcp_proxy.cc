// SPDX-License-Identifier: Apache-2.0
#include "tests/common/tcp_proxy.h"

#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <condition_variable>
#include <exception>
#include <future>
#include <list>
#include <mutex>
#include <thread>

namespace zk::test {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using tcp = asio::ip::tcp;

namespace {

constexpr int32_t kNotificationXid = -1;
constexpr int32_t kPingXid = -2;
// A longer "frame" is no frame: the server's bytes are forwarded as they come.
constexpr int64_t kMaxFrame = 64 << 20;

void rethrow_if_failed(std::exception_ptr e) {
  if (e) std::rethrow_exception(e);
}

int32_t read_be32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<int32_t>((uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) |
                              (uint32_t{b[2]} << 8) | uint32_t{b[3]});
}

// One forwarded connection: the client's socket and ours to the server.
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

// The client's bytes to the server, as they come.
awaitable<void> pump_requests(std::shared_ptr<Link> link) {
  std::array<char, 16384> buf{};
  for (;;) {
    boost::system::error_code ec;
    size_t n = co_await link->client.async_read_some(asio::buffer(buf),
                                                     asio::redirect_error(use_awaitable, ec));
    if (ec) break;
    co_await asio::async_write(link->server, asio::buffer(buf.data(), n),
                               asio::redirect_error(use_awaitable, ec));
    if (ec) break;
  }
  link->close();
}

}  // namespace

struct TcpProxy::Impl {
  explicit Impl(uint16_t target) : target_port(target) {}

  // Runs `f` on the proxy's thread and waits until it has run.
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
      asio::co_spawn(io, pump_requests(link), rethrow_if_failed);
      asio::co_spawn(io, pump_replies(link), rethrow_if_failed);
    }
  }

  // The server's bytes to the client, whole frames at a time, until either
  // side closes or a reply is cut.
  awaitable<void> pump_replies(std::shared_ptr<Link> link) {
    std::array<char, 16384> buf{};
    std::string pending;  // read from the server, not yet forwarded
    bool handshake_done = false;
    bool frames = true;  // false once the server's bytes turn out not to be frames
    for (;;) {
      boost::system::error_code ec;
      size_t n = co_await link->server.async_read_some(asio::buffer(buf),
                                                       asio::redirect_error(use_awaitable, ec));
      if (ec) {
        // Whatever the server sent before it closed, as a transparent wire would.
        if (!pending.empty()) {
          co_await asio::async_write(link->client, asio::buffer(pending),
                                     asio::redirect_error(use_awaitable, ec));
        }
        break;
      }
      pending.append(buf.data(), n);
      size_t ready = frames ? 0 : pending.size();  // bytes to forward now
      bool cut = false;
      while (frames && pending.size() - ready >= 4) {
        const int32_t length = read_be32(pending.data() + ready);
        if (length < 0 || length > kMaxFrame) {
          frames = false;
          ready = pending.size();
          break;
        }
        const size_t frame = 4 + static_cast<size_t>(length);
        if (pending.size() - ready < frame) break;
        if (handshake_done && length >= 4) {
          const int32_t xid = read_be32(pending.data() + ready + 4);
          if (xid != kPingXid && xid != kNotificationXid && cut_armed.exchange(false)) {
            cut = true;
            break;
          }
        }
        handshake_done = true;
        ready += frame;
      }
      if (ready > 0) {
        co_await asio::async_write(link->client, asio::buffer(pending.data(), ready),
                                   asio::redirect_error(use_awaitable, ec));
        if (ec) break;
        pending.erase(0, ready);
      }
      if (cut) {
        ++cuts;
        break;
      }
    }
    link->close();
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
  std::list<std::weak_ptr<Link>> links;  // forwarded connections
  bool refusing = false;
  bool silent = false;
  std::list<std::shared_ptr<Link>> held;  // silent connections, closed by the destructor
  std::mutex held_mu;                     // guards held_count for waiting threads
  std::condition_variable held_cv;
  int held_count = 0;
  std::atomic<int> forwarded{0};
  std::atomic<bool> cut_armed{false};
  std::atomic<int> cuts{0};
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

void TcpProxy::cut_next_reply() { impl_->cut_armed = true; }

int TcpProxy::cuts() const { return impl_->cuts.load(); }

}  // namespace zk::test
