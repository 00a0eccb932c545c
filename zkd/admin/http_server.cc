// SPDX-License-Identifier: Apache-2.0
#include "zkd/admin/http_server.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <exception>
#include <optional>
#include <utility>

#include "zkd/log/log.h"
#include "zkd/net/client_connection.h"
#include "zkd/net/tls_context.h"
#include "zkd/net/tls_detect.h"

namespace zkd::admin {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::as_tuple;
using asio::use_awaitable;

struct HttpServer::Connection {
  explicit Connection(tcp::socket socket) : stream(std::move(socket)) {}
  beast::tcp_stream stream;
  std::shared_ptr<asio::ssl::context> tls_context;  // kept while `tls` uses it
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream&>> tls;
};

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::map<std::string, std::string> parse_query(std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    std::string key = percent_decode(pair.substr(0, eq), true);
    std::string value =
        eq == std::string_view::npos ? std::string() : percent_decode(pair.substr(eq + 1), true);
    out.emplace(std::move(key), std::move(value));  // the first value wins, as Apache's
  }
  return out;
}

HttpResponse plain(unsigned status, std::string body) {
  return HttpResponse{status, "text/plain; charset=utf-8", std::move(body), {}};
}

}  // namespace

std::string percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      int hi = hex_digit(text[i + 1]);
      int lo = hex_digit(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && c == '+') ? ' ' : c;
  }
  return out;
}

HttpServer::HttpServer(asio::io_context& io, std::string name, HttpHandler handler,
                       HttpOptions options)
    : io_(io),
      name_(std::move(name)),
      handler_(std::move(handler)),
      options_(options),
      acceptor_(io) {}

boost::system::error_code HttpServer::listen(const tcp::endpoint& endpoint) {
  boost::system::error_code ec;
  acceptor_.open(endpoint.protocol(), ec);
  if (ec) return ec;
  acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (ec) return ec;
  acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
  }
  return ec;
}

HttpServer::tcp::endpoint HttpServer::local_endpoint() const {
  boost::system::error_code ec;
  auto endpoint = acceptor_.local_endpoint(ec);
  return ec ? tcp::endpoint{} : endpoint;
}

void HttpServer::start() {
  auto self = shared_from_this();
  asio::co_spawn(io_, accept_loop(), [self](std::exception_ptr e) {
    if (!e) return;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      net::log_error(self->name_, " failed: ", ex.what());
    }
  });
}

void HttpServer::stop() {
  if (stopped_) return;
  stopped_ = true;
  boost::system::error_code ec;
  acceptor_.close(ec);
  for (auto& [id, weak] : open_) {
    if (auto connection = weak.lock()) connection->stream.socket().close(ec);
  }
  open_.clear();
}

asio::awaitable<void> HttpServer::accept_loop() {
  auto self = shared_from_this();
  while (!stopped_) {
    auto [ec, socket] = co_await acceptor_.async_accept(as_tuple(use_awaitable));
    if (ec) {
      if (stopped_ || ec == asio::error::operation_aborted) break;
      net::log_warn(name_, ": accept failed: ", ec.message());
      continue;
    }
    auto connection = std::make_shared<Connection>(std::move(socket));
    asio::co_spawn(io_, serve(connection), [self](std::exception_ptr e) {
      if (!e) return;
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        net::log_warn(self->name_, ": connection failed: ", ex.what());
      }
    });
  }
}

asio::awaitable<void> HttpServer::serve(std::shared_ptr<Connection> connection) {
  auto self = shared_from_this();
  const uint64_t id = next_id_++;
  open_.emplace(id, connection);
  auto& stream = connection->stream;
  stream.expires_after(options_.idle_timeout);
  const net::FirstByte first = options_.tls && options_.tls_optional
                                   ? co_await net::peek_first_byte(stream.socket())
                                   : net::FirstByte::kTlsHello;
  if (first == net::FirstByte::kGone) {
    // the client left before saying anything
  } else if (!options_.tls || first == net::FirstByte::kOther) {
    if (options_.tls && options_.on_plaintext) options_.on_plaintext();
    co_await exchange(stream, "");
  } else {
    options_.tls->reload_if_changed();
    connection->tls_context = options_.tls->context();
    connection->tls =
        std::make_unique<beast::ssl_stream<beast::tcp_stream&>>(stream, *connection->tls_context);
    auto [ec] = co_await connection->tls->async_handshake(asio::ssl::stream_base::server,
                                                          as_tuple(use_awaitable));
    if (ec) {
      boost::system::error_code peer_ec;
      net::log_info(name_, ": TLS handshake with ", stream.socket().remote_endpoint(peer_ec),
                    " failed: ", ec.message());
    } else {
      co_await exchange(
          *connection->tls,
          net::x509_subject(SSL_get0_peer_certificate(connection->tls->native_handle())));
    }
  }
  boost::system::error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  stream.socket().close(ec);
  open_.erase(id);
}

asio::awaitable<HttpResponse> HttpServer::handle(const HttpRequest& request) {
  // The handler may answer at once or later; either way the answer resumes
  // this coroutine from the io_context, never from inside the handler.
  co_return co_await asio::async_initiate<decltype(use_awaitable), void(HttpResponse)>(
      [this, &request](auto completion) {
        auto shared = std::make_shared<decltype(completion)>(std::move(completion));
        handler_(request, [this, shared](HttpResponse response) {
          asio::post(io_, [shared, response = std::move(response)]() mutable {
            (*shared)(std::move(response));
          });
        });
      },
      use_awaitable);
}

template <typename Stream>
asio::awaitable<void> HttpServer::exchange(Stream& stream, std::string x509_subject) {
  beast::tcp_stream& tcp_stream = beast::get_lowest_layer(stream);
  beast::flat_buffer buffer;
  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<uint32_t>(options_.max_header_bytes));
  parser.body_limit(options_.max_body_bytes);
  tcp_stream.expires_after(options_.idle_timeout);
  auto [read_ec, read_bytes] =
      co_await http::async_read_header(stream, buffer, parser, as_tuple(use_awaitable));
  (void)read_bytes;

  std::optional<HttpResponse> answer;
  bool head = false;
  unsigned version = 11;
  HttpRequest request;
  if (!read_ec) {
    const auto& header = parser.get();
    version = header.version();
    head = header.method() == http::verb::head;
    const bool post = header.method() == http::verb::post && options_.admit_post;
    std::string_view target = header.target();
    size_t q = target.find('?');
    request.method = post   ? HttpRequest::Method::kPost
                     : head ? HttpRequest::Method::kHead
                            : HttpRequest::Method::kGet;
    request.path = percent_decode(target.substr(0, q), false);
    if (q != std::string_view::npos) request.query = parse_query(target.substr(q + 1));
    if (auto it = header.find(http::field::authorization); it != header.end()) {
      request.authorization = std::string(it->value());
    }
    boost::system::error_code peer_ec;
    request.peer = net::unmapped(tcp_stream.socket().remote_endpoint(peer_ec)).address();
    request.x509_subject = std::move(x509_subject);
    if (header.method() != http::verb::get && !head && !post) {
      answer = plain(405, "Method Not Allowed\n");
    } else if (post) {
      answer = options_.admit_post(request);
      if (!answer) {
        parser.body_limit(options_.max_post_body_bytes);
        if (beast::iequals(header[http::field::expect], "100-continue")) {
          http::response<http::empty_body> go_on{http::status::continue_, version};
          auto [continue_ec, sent] =
              co_await http::async_write(stream, go_on, as_tuple(use_awaitable));
          (void)sent;
          read_ec = continue_ec;
        }
      }
    }
    if (!answer && !read_ec && !parser.is_done()) {
      tcp_stream.expires_after(options_.idle_timeout);
      auto [body_ec, body_bytes] =
          co_await http::async_read(stream, buffer, parser, as_tuple(use_awaitable));
      (void)body_bytes;
      read_ec = body_ec;
    }
  }

  if (answer) {
    // refused before its body was read
  } else if (read_ec == http::error::header_limit || read_ec == http::error::body_limit ||
             read_ec == http::error::buffer_overflow) {
    boost::system::error_code peer_ec;
    net::log_info(name_, ": request too large from ", tcp_stream.socket().remote_endpoint(peer_ec),
                  "; closing the connection");
  } else if (read_ec == http::error::end_of_stream || read_ec == beast::error::timeout ||
             read_ec == asio::error::operation_aborted || read_ec == asio::error::eof ||
             read_ec == asio::error::connection_reset ||
             read_ec == asio::ssl::error::stream_truncated) {
    // The peer left, took too long, or the server stops: nothing to answer.
  } else if (read_ec) {
    answer = plain(400, "Bad Request: " + read_ec.message() + "\n");
  } else {
    if (request.method == HttpRequest::Method::kPost) request.body = parser.release().body();
    answer = co_await handle(request);
  }

  if (answer && !stopped_) {
    http::response<http::string_body> response{static_cast<http::status>(answer->status), version};
    if (!answer->content_type.empty()) {
      response.set(http::field::content_type, answer->content_type);
    }
    for (const auto& [name, value] : answer->headers) response.set(name, value);
    if (answer->status == 405) {
      response.set(http::field::allow, options_.admit_post ? "GET, HEAD, POST" : "GET, HEAD");
    }
    response.keep_alive(false);
    const size_t length = answer->body.size();
    if (!head) response.body() = std::move(answer->body);
    response.content_length(length);
    tcp_stream.expires_after(options_.idle_timeout);
    auto [write_ec, written] =
        co_await http::async_write(stream, response, as_tuple(use_awaitable));
    (void)written;
    if (write_ec && write_ec != asio::error::operation_aborted) {
      net::log_info(name_, ": write failed: ", write_ec.message());
    }
  }
}

}  // namespace zkd::admin
