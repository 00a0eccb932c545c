// SPDX-License-Identifier: Apache-2.0
// A TCP acceptor listening on host:port (a name or an address literal; the
// first address it resolves to), address reuse on, as the peer transports
// open their ports. On an error the acceptor is left closed.
#pragma once

#include <boost/asio/error.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>
#include <cstdint>
#include <string>

namespace zkd::net {

// Sets `bound` to the endpoint listened on.
inline boost::system::error_code listen_on(boost::asio::ip::tcp::acceptor& acceptor,
                                           const std::string& host, uint16_t port,
                                           boost::asio::ip::tcp::endpoint& bound) {
  using tcp = boost::asio::ip::tcp;
  boost::system::error_code ec;
  tcp::resolver resolver(acceptor.get_executor());
  auto results = resolver.resolve(host, std::to_string(port), ec);
  if (ec) return ec;
  if (results.empty()) return boost::asio::error::host_not_found;
  bound = results.begin()->endpoint();
  acceptor.open(bound.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(bound, ec);
  if (!ec) acceptor.listen(boost::asio::socket_base::max_listen_connections, ec);
  if (ec) {
    boost::system::error_code ignored;
    acceptor.close(ignored);
  }
  return ec;
}

}  // namespace zkd::net
