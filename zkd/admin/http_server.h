// SPDX-License-Identifier: Apache-2.0
// A small HTTP/1.1 server on the server's io_context (Boost.Beast), for the
// admin commands and /metrics: one request per connection (answered with
// "Connection: close"), GET and HEAD only.
//
//   - a request that does not parse gets 400 and the connection is closed;
//   - a method other than GET or HEAD gets 405;
//   - a request whose header (or body) is larger than the limits closes its
//     connection without an answer; other connections are not affected;
//   - a connection that sends no whole request within the idle timeout is
//     closed (Apache's admin.idleTimeout).
// The handler runs on the io_context's thread (zkd's state thread) and must
// not block; reads and writes are asynchronous.
//
// Ownership: create with std::make_shared; the accept loop and every
// connection keep the server alive until stop(). Threading: call everything
// on the io_context's thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace zkd::net {
class TlsServer;
}

namespace zkd::admin {

struct HttpResponse {
  unsigned status = 200;
  std::string content_type;  // "" = no Content-Type header
  std::string body;
};

// `path`: the request target up to '?', percent-decoded; `query`: its
// parameters (first value of each name), percent-decoded.
using HttpHandler = std::function<HttpResponse(std::string_view path,
                                               const std::map<std::string, std::string>& query)>;

struct HttpOptions {
  size_t max_header_bytes = 8 * 1024;
  size_t max_body_bytes = 8 * 1024;
  std::chrono::milliseconds idle_timeout{30000};
  // HTTPS only (Apache's admin.forceHttps): every connection begins with a
  // TLS handshake on this context, whose client-certificate policy is
  // admin.needClientAuth's; a failed one is logged and closed. Null: HTTP.
  std::shared_ptr<net::TlsServer> tls;
  // With `tls`: HTTP too (Apache's admin.portUnification), a connection's
  // first byte telling a TLS client from a plain one (net/tls_detect.h).
  bool tls_optional = false;
};

class HttpServer : public std::enable_shared_from_this<HttpServer> {
 public:
  using tcp = boost::asio::ip::tcp;

  // `name` appears in log lines ("admin server", "metrics server").
  HttpServer(boost::asio::io_context& io, std::string name, HttpHandler handler,
             HttpOptions options = {});

  // Binds and listens; the error is returned, not thrown.
  boost::system::error_code listen(const tcp::endpoint& endpoint);
  tcp::endpoint local_endpoint() const;
  // Starts accepting; requires a successful listen().
  void start();
  // Stops accepting and closes every open connection.
  void stop();

 private:
  struct Connection;
  boost::asio::awaitable<void> accept_loop();
  boost::asio::awaitable<void> serve(std::shared_ptr<Connection> connection);
  // One request and its answer on `stream` (plain or TLS).
  template <typename Stream>
  boost::asio::awaitable<void> exchange(Stream& stream);

  boost::asio::io_context& io_;
  std::string name_;
  HttpHandler handler_;
  HttpOptions options_;
  tcp::acceptor acceptor_;
  bool stopped_ = false;
  uint64_t next_id_ = 1;
  std::map<uint64_t, std::weak_ptr<Connection>> open_;
};

// "a%20b+c" -> "a b c" (application/x-www-form-urlencoded rules for '+'
// only when `plus_is_space`); a malformed escape is kept as it is.
std::string percent_decode(std::string_view text, bool plus_is_space);

}  // namespace zkd::admin
