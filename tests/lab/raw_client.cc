// SPDX-License-Identifier: Apache-2.0
#include "tests/lab/raw_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "libzk/wire/frame.h"
#include "libzk/wire/jute.h"

namespace zk::lab {

using Clock = std::chrono::steady_clock;

namespace {

int remaining_ms(Clock::time_point until) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

}  // namespace

std::optional<RawConnection> RawConnection::connect(const std::string& host, uint16_t port,
                                                    std::chrono::milliseconds deadline) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) return std::nullopt;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return std::nullopt;
  RawConnection conn(fd);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno != EINPROGRESS) return std::nullopt;
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(deadline.count())) != 1) return std::nullopt;
    int err = 0;
    socklen_t len = sizeof err;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) return std::nullopt;
  }
  return conn;
}

RawConnection::RawConnection(RawConnection&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), buffer_(std::move(other.buffer_)), eof_(other.eof_) {}

RawConnection& RawConnection::operator=(RawConnection&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    buffer_ = std::move(other.buffer_);
    eof_ = other.eof_;
  }
  return *this;
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawConnection::send_bytes(std::string_view bytes) {
  auto until = Clock::now() + std::chrono::seconds(5);
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd_, POLLOUT, 0};
      if (::poll(&p, 1, remaining_ms(until)) != 1) return false;
      continue;
    }
    return false;
  }
  return true;
}

bool RawConnection::send_frame(std::string_view payload) {
  std::string out;
  zk::wire::Writer w(out);
  size_t start = w.begin_frame();
  out.append(payload);
  w.end_frame(start);
  return send_bytes(out);
}

bool RawConnection::send_request(int32_t xid, zk::wire::OpCode op, std::string_view body) {
  std::string payload;
  zk::wire::Writer w(payload);
  zk::wire::RequestHeader{xid, op}.write(w);
  payload.append(body);
  return send_frame(payload);
}

bool RawConnection::fill(Clock::time_point until) {
  while (true) {
    char chunk[65536];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      return true;
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      pollfd p{fd_, POLLIN, 0};
      int r = ::poll(&p, 1, remaining_ms(until));
      if (r <= 0) return false;  // deadline
      continue;
    }
    if (errno == EINTR) continue;
    eof_ = true;  // reset by peer counts as closed
    return false;
  }
}

std::optional<std::string> RawConnection::read_frame(std::chrono::milliseconds deadline) {
  auto until = Clock::now() + deadline;
  while (true) {
    auto f = zk::wire::next_frame(buffer_, 1 << 30);
    if (f.status == zk::wire::FrameStatus::kFrame) {
      std::string payload(f.payload);
      buffer_.erase(0, f.consumed);
      return payload;
    }
    if (f.status == zk::wire::FrameStatus::kBadLength) return std::nullopt;
    if (!fill(until)) return std::nullopt;
  }
}

bool RawConnection::closed_without_data(std::chrono::milliseconds deadline) {
  if (!buffer_.empty()) return false;
  auto until = Clock::now() + deadline;
  if (fill(until)) return false;
  return eof_;
}

std::optional<std::string> RawConnection::read_to_end(std::chrono::milliseconds deadline) {
  auto until = Clock::now() + deadline;
  while (fill(until)) {
  }
  if (!eof_) return std::nullopt;
  return std::exchange(buffer_, {});
}

zk::wire::ConnectRequest new_session_request(int32_t timeout_ms) {
  zk::wire::ConnectRequest r;
  r.timeout_ms = timeout_ms;
  return r;
}

std::optional<Session> open_session(const std::string& host, uint16_t port,
                                    const zk::wire::ConnectRequest& request) {
  auto conn = RawConnection::connect(host, port);
  if (!conn) return std::nullopt;
  std::string payload;
  zk::wire::Writer w(payload);
  request.write(w);
  if (!conn->send_frame(payload)) return std::nullopt;
  auto reply = conn->read_frame();
  if (!reply) return std::nullopt;
  Session s{std::move(*conn), {}, reply->size()};
  if (!zk::wire::decode(*reply, s.response)) return std::nullopt;
  return s;
}

std::optional<Reply> parse_reply(std::string_view payload) {
  zk::wire::Reader r(payload);
  Reply reply;
  reply.header.read(r);
  if (!r.ok()) return std::nullopt;
  reply.body = std::string(r.rest());
  return reply;
}

}  // namespace zk::lab
