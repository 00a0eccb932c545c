// SPDX-License-Identifier: Apache-2.0
#include "tests/recipes/cutting_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace zk::recipes::testing {

namespace {

constexpr int32_t kPingXid = -2;
constexpr int32_t kNotificationXid = -1;

int32_t read_be32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return static_cast<int32_t>(ntohl(v));
}

bool send_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

int connect_loopback(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

struct CuttingProxy::Impl {
  uint16_t target_port = 0;
  uint16_t port = 0;
  int listen_fd = -1;
  std::atomic<bool> stopping{false};
  std::atomic<bool> refusing{false};
  std::atomic<bool> cut_armed{false};
  std::atomic<int> cuts{0};
  std::mutex mu;
  std::set<int> open_fds;  // guarded by mu: both ends of every forwarded connection
  std::vector<std::thread> threads;
  std::thread acceptor;

  void track(int fd) {
    std::lock_guard lock(mu);
    open_fds.insert(fd);
  }
  void untrack_and_close(int fd) {
    {
      std::lock_guard lock(mu);
      open_fds.erase(fd);
    }
    close(fd);
  }
  void shutdown_all() {
    std::lock_guard lock(mu);
    for (int fd : open_fds) shutdown(fd, SHUT_RDWR);
  }

  void accept_loop() {
    for (;;) {
      const int client = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (stopping) {
        if (client >= 0) close(client);
        return;
      }
      if (client < 0) continue;
      if (refusing) {
        close(client);
        continue;
      }
      const int server = connect_loopback(target_port);
      if (server < 0) {
        close(client);
        continue;
      }
      track(client);
      track(server);
      std::lock_guard lock(mu);
      threads.emplace_back([this, client, server] { relay(client, server); });
    }
  }

  // Forwards both ways until either side closes; frames from the server are
  // forwarded whole, so that one can be cut.
  void relay(int client, int server) {
    std::string from_server;
    bool handshake_done = false;
    char buf[65536];
    pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
    for (bool open = true; open;) {
      if (poll(fds, 2, -1) < 0) break;
      if (fds[0].revents != 0) {
        const ssize_t n = recv(client, buf, sizeof buf, 0);
        if (n <= 0 || !send_all(server, buf, static_cast<size_t>(n))) break;
      }
      if (fds[1].revents != 0) {
        const ssize_t n = recv(server, buf, sizeof buf, 0);
        if (n <= 0) break;
        from_server.append(buf, static_cast<size_t>(n));
        while (open && from_server.size() >= 4) {
          const int32_t length = read_be32(from_server.data());
          const size_t frame = 4 + static_cast<size_t>(length);
          if (from_server.size() < frame) break;
          bool cut = false;
          if (handshake_done && length >= 4) {
            const int32_t xid = read_be32(from_server.data() + 4);
            if (xid != kPingXid && xid != kNotificationXid) {
              bool armed = true;
              cut = cut_armed.compare_exchange_strong(armed, false);
            }
          }
          handshake_done = true;
          if (cut) {
            ++cuts;
            open = false;
            break;
          }
          if (!send_all(client, from_server.data(), frame)) open = false;
          from_server.erase(0, frame);
        }
      }
    }
    untrack_and_close(client);
    untrack_and_close(server);
  }
};

CuttingProxy::CuttingProxy(uint16_t target_port) : impl_(std::make_unique<Impl>()) {
  impl_->target_port = target_port;
  impl_->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(impl_->listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(impl_->listen_fd, 16) != 0 ||
      getsockname(impl_->listen_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error("CuttingProxy: cannot listen");
  }
  impl_->port = ntohs(addr.sin_port);
  impl_->acceptor = std::thread([impl = impl_.get()] { impl->accept_loop(); });
}

CuttingProxy::~CuttingProxy() {
  impl_->stopping = true;
  // Wake the acceptor with a connection of our own.
  const int wake = connect_loopback(impl_->port);
  if (wake >= 0) close(wake);
  impl_->acceptor.join();
  close(impl_->listen_fd);
  impl_->shutdown_all();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(impl_->mu);
    threads.swap(impl_->threads);
  }
  for (auto& t : threads) t.join();
}

std::string CuttingProxy::address() const { return "127.0.0.1:" + std::to_string(impl_->port); }

void CuttingProxy::cut_next_reply() { impl_->cut_armed = true; }

int CuttingProxy::cuts() const { return impl_->cuts.load(); }

void CuttingProxy::set_refusing(bool refusing) {
  impl_->refusing = refusing;
  if (refusing) impl_->shutdown_all();
}

}  // namespace zk::recipes::testing
