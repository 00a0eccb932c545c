// SPDX-License-Identifier: Apache-2.0
#include "zklab/four_letter_word.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace zk::lab {

namespace {

using Clock = std::chrono::steady_clock;

// Milliseconds left until `until`, at least 0.
int left_ms(Clock::time_point until) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Owns a socket descriptor.
class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

bool connect_until(int fd, const sockaddr_in& addr, Clock::time_point until) {
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) return true;
  if (errno != EINPROGRESS) return false;
  pollfd p{fd, POLLOUT, 0};
  int err = 0;
  socklen_t len = sizeof err;
  return ::poll(&p, 1, left_ms(until)) == 1 &&
         ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
}

}  // namespace

std::optional<std::string> four_letter_word(const std::string& host, uint16_t port,
                                            std::string_view word,
                                            std::chrono::milliseconds deadline) {
  const auto until = Clock::now() + deadline;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) return std::nullopt;
  Socket socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (socket.fd() < 0 || !connect_until(socket.fd(), addr, until)) return std::nullopt;
  if (::send(socket.fd(), word.data(), word.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(word.size())) {
    return std::nullopt;
  }
  std::string answer;
  char buf[8192];
  while (true) {
    pollfd p{socket.fd(), POLLIN, 0};
    if (::poll(&p, 1, left_ms(until)) != 1) return std::nullopt;  // deadline
    ssize_t n = ::recv(socket.fd(), buf, sizeof buf, 0);
    if (n == 0) return answer;  // the server closed: the answer is complete
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return std::nullopt;
    }
    answer.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace zk::lab
