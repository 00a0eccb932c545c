// SPDX-License-Identifier: Apache-2.0
#include "zkd/net/tls_detect.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace zkd::net {

namespace {

// The first byte of a TLS record that carries a handshake.
constexpr unsigned char kTlsHandshakeRecord = 0x16;

}  // namespace

boost::asio::awaitable<FirstByte> peek_first_byte(boost::asio::ip::tcp::socket& socket) {
  namespace asio = boost::asio;
  auto [wait_ec] = co_await socket.async_wait(asio::ip::tcp::socket::wait_read,
                                              asio::as_tuple(asio::use_awaitable));
  if (wait_ec) co_return FirstByte::kGone;
  unsigned char first = 0;
  boost::system::error_code ec;
  const size_t n = socket.receive(asio::buffer(&first, 1), asio::ip::tcp::socket::message_peek, ec);
  if (ec || n == 0) co_return FirstByte::kGone;
  co_return first == kTlsHandshakeRecord ? FirstByte::kTlsHello : FirstByte::kOther;
}

}  // namespace zkd::net
