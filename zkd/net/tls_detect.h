// SPDX-License-Identifier: Apache-2.0
// How a listener that serves TLS tells a TLS client from a plaintext one:
// by the connection's first byte, read without taking it (the TLS
// handshake must still read it). A TLS client begins with a handshake
// record (0x16, its ClientHello); a ZooKeeper ConnectRequest, a
// four-letter word or an HTTP request never does.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace zkd::net {

enum class FirstByte {
  kGone,      // the peer left, or the wait was cancelled (the socket closed)
  kTlsHello,  // a TLS handshake record
  kOther,     // anything else: plaintext
};

// Waits until `socket` has a byte to read and says what it is.
boost::asio::awaitable<FirstByte> peek_first_byte(boost::asio::ip::tcp::socket& socket);

}  // namespace zkd::net
