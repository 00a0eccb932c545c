// SPDX-License-Identifier: Apache-2.0
#include "zklab/process/four_letter_word.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/ssl/context.hpp>
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

// Sends `word` and reads until the server closes, in plaintext.
std::optional<std::string> exchange_plain(int fd, std::string_view word, Clock::time_point until) {
  if (::send(fd, word.data(), word.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(word.size())) {
    return std::nullopt;
  }
  std::string answer;
  char buf[8192];
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, left_ms(until)) != 1) return std::nullopt;  // deadline
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0) return answer;  // the server closed: the answer is complete
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return std::nullopt;
    }
    answer.append(buf, static_cast<size_t>(n));
  }
}

// Waits until the non-blocking `ssl` operation that returned `result` can go
// on; false on any other error and at the deadline.
bool wait_for_tls(SSL* ssl, int fd, int result, Clock::time_point until) {
  const int error = SSL_get_error(ssl, result);
  if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) return false;
  pollfd p{fd, static_cast<short>(error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT), 0};
  return ::poll(&p, 1, left_ms(until)) == 1;
}

// The same over TLS on the connected socket `fd`.
std::optional<std::string> exchange_tls(int fd, const std::string& host, std::string_view word,
                                        Clock::time_point until, boost::asio::ssl::context& tls) {
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl(SSL_new(tls.native_handle()), &SSL_free);
  if (!ssl || SSL_set_fd(ssl.get(), fd) != 1) return std::nullopt;
  // The server ends the answer by closing, with or without close_notify.
  SSL_set_options(ssl.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_set_verify(ssl.get(), SSL_VERIFY_PEER, nullptr);
  X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), host.c_str());
  int r = 0;
  while ((r = SSL_connect(ssl.get())) != 1) {
    if (!wait_for_tls(ssl.get(), fd, r, until)) {
      ERR_clear_error();
      return std::nullopt;
    }
  }
  size_t sent = 0;
  while (sent < word.size()) {
    r = SSL_write(ssl.get(), word.data() + sent, static_cast<int>(word.size() - sent));
    if (r > 0) {
      sent += static_cast<size_t>(r);
    } else if (!wait_for_tls(ssl.get(), fd, r, until)) {
      ERR_clear_error();
      return std::nullopt;
    }
  }
  std::string answer;
  char buf[8192];
  while (true) {
    r = SSL_read(ssl.get(), buf, sizeof buf);
    if (r > 0) {
      answer.append(buf, static_cast<size_t>(r));
    } else if (SSL_get_error(ssl.get(), r) == SSL_ERROR_ZERO_RETURN) {
      return answer;  // the server closed: the answer is complete
    } else if (!wait_for_tls(ssl.get(), fd, r, until)) {
      ERR_clear_error();
      return std::nullopt;
    }
  }
}

}  // namespace

std::optional<std::string> four_letter_word(const std::string& host, uint16_t port,
                                            std::string_view word,
                                            std::chrono::milliseconds deadline,
                                            const std::shared_ptr<boost::asio::ssl::context>& tls) {
  const auto until = Clock::now() + deadline;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) return std::nullopt;
  Socket socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (socket.fd() < 0 || !connect_until(socket.fd(), addr, until)) return std::nullopt;
  if (tls) return exchange_tls(socket.fd(), host, word, until, *tls);
  return exchange_plain(socket.fd(), word, until);
}

}  // namespace zk::lab
