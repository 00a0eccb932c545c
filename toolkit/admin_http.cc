// SPDX-License-Identifier: Apache-2.0
#include "toolkit/admin_http.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cctype>

namespace zk::toolkit {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

AdminHttpReply admin_http(const AdminHttpRequest& request) {
  AdminHttpReply reply;
  asio::io_context io;
  beast::tcp_stream stream(io);
  boost::system::error_code ec;
  const std::string where = request.host + ":" + std::to_string(request.port);
  const auto endpoints =
      asio::ip::tcp::resolver(io).resolve(request.host, std::to_string(request.port), ec);
  if (ec) {
    reply.error = "cannot resolve " + request.host + ": " + ec.message();
    return reply;
  }
  stream.expires_after(request.timeout);
  stream.connect(endpoints, ec);
  if (ec) {
    reply.error = "cannot connect to the admin server at " + where + ": " + ec.message();
    return reply;
  }
  const bool post = request.method == "POST";
  http::request<http::string_body> out{post ? http::verb::post : http::verb::get, request.target,
                                       11};
  out.set(http::field::host, request.host);
  if (!request.authorization.empty()) out.set(http::field::authorization, request.authorization);
  if (post) {
    out.set(http::field::content_type, "application/octet-stream");
    out.body() = request.body;
  }
  out.prepare_payload();
  http::write(stream, out, ec);
  if (ec) {
    reply.error = "cannot send to " + where + ": " + ec.message();
    return reply;
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(boost::none);
  http::read(stream, buffer, parser, ec);
  if (ec) {
    reply.error = "no whole answer from " + where + ": " + ec.message();
    return reply;
  }
  auto& in = parser.get();
  reply.status = in.result_int();
  for (const auto& field : in) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    reply.headers[name] = std::string(field.value());
  }
  reply.body = std::move(in.body());
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  return reply;
}

}  // namespace zk::toolkit
