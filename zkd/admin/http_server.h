// SPDX-License-Identifier: Apache-2.0
// A small HTTP/1.1 server on the server's io_context (Boost.Beast), for the
// admin commands and /metrics: one request per connection (answered with
// "Connection: close"); GET and HEAD, and POST where the options admit it.
//
//   - a request that does not parse gets 400 and the connection is closed;
//   - a method other than GET or HEAD gets 405, and so does POST unless
//     HttpOptions::admit_post is set;
//   - a POST is shown to admit_post once its header is in, before its body
//     is read: a refusal there (unauthenticated, unknown command) is
//     answered without taking the body; an admitted one may carry up to
//     max_post_body_bytes ("Expect: 100-continue" is answered);
//   - a request whose header (or body) is larger than the limits closes its
//     connection without an answer; other connections are not affected;
//   - a connection that sends no whole request within the idle timeout is
//     closed (Apache's admin.idleTimeout).
// The handler runs on the io_context's thread (zkd's state thread) and must
// not block; it answers through the HttpRespond it is given, at once or
// later (on the same thread). Reads and writes are asynchronous.
//
// Ownership: create with std::make_shared; the accept loop and every
// connection keep the server alive until stop(). Threading: call everything
// on the io_context's thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zkd::net {
class TlsServer;
}

namespace zkd::admin {

struct HttpResponse {
  unsigned status = 200;
  std::string content_type;  // "" = no Content-Type header
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // more header fields
};

struct HttpRequest {
  enum class Method { kGet, kHead, kPost };
  Method method = Method::kGet;
  // The target up to '?', percent-decoded.
  std::string path;
  // The target's parameters (first value of each name), percent-decoded.
  std::map<std::string, std::string> query;
  std::string authorization;      // the Authorization header; "" when absent
  std::string body;               // a POST's; empty while admit_post looks at it
  boost::asio::ip::address peer;  // IPv4-mapped addresses given as IPv4
  // The subject of the client certificate a TLS connection verified
  // (x509_subject's form); "" on plain HTTP or without one.
  std::string x509_subject;
};

// Answers a request; call once, on the io_context's thread. Dropping it
// unanswered closes the connection.
using HttpRespond = std::function<void(HttpResponse)>;
using HttpHandler = std::function<void(const HttpRequest& request, HttpRespond respond)>;
// A POST's header (body empty): a response refuses it without reading the
// body; nullopt admits it.
using HttpAdmission = std::function<std::optional<HttpResponse>(const HttpRequest& head)>;

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
  // With tls_optional: called for each connection served in plain HTTP
  // (Apache's insecure_admin_count); may be null.
  std::function<void()> on_plaintext = nullptr;
  // Null: POST gets 405.
  HttpAdmission admit_post;
  uint64_t max_post_body_bytes = 8 * 1024;
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
  // One request and its answer on `stream` (plain or TLS); `x509_subject`
  // is the verified client certificate's.
  template <typename Stream>
  boost::asio::awaitable<void> exchange(Stream& stream, std::string x509_subject);
  // The handler's answer, awaited.
  boost::asio::awaitable<HttpResponse> handle(const HttpRequest& request);

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
