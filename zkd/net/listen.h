// SPDX-License-Identifier: Apache-2.0
// A TCP acceptor listening on host:port (a name or an address literal; the
// first address it resolves to), address reuse on, as the peer transports
// open their ports. On an error the acceptor is left closed.
//
// A name that does not resolve (yet: a pod's own DNS record often appears
// seconds after the pod starts) is told apart from a bind error by
// is_resolution_error(), so that the transports retry the one and report
// the other; they resolve again asynchronously and bind with listen_at().
#pragma once

#include <boost/asio/error.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>
#include <cstdint>
#include <string>
#include <string_view>

namespace zkd::net {

// quorumListenOnAllIPs: the host a transport listens on instead of its own
// server line's (every IPv4 address, as Apache's InetSocketAddress(port)).
inline constexpr std::string_view kAllAddresses = "0.0.0.0";

// Whether `ec`, from listen_on() or a resolver, says the name did not
// resolve (no such name, no address, the resolver failed or timed out),
// rather than that binding the address failed.
inline bool is_resolution_error(const boost::system::error_code& ec) {
  namespace error = boost::asio::error;
  return ec == error::host_not_found || ec == error::host_not_found_try_again ||
         ec == error::no_data || ec == error::no_recovery;
}

// Opens, binds and listens on `endpoint`.
inline boost::system::error_code listen_at(boost::asio::ip::tcp::acceptor& acceptor,
                                           const boost::asio::ip::tcp::endpoint& endpoint) {
  using tcp = boost::asio::ip::tcp;
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(boost::asio::socket_base::max_listen_connections, ec);
  if (ec) {
    boost::system::error_code ignored;
    acceptor.close(ignored);
  }
  return ec;
}

// Resolves host (blocking, on the caller's thread) and listens on its first
// address; sets `bound` to the endpoint listened on.
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
  return listen_at(acceptor, bound);
}

}  // namespace zkd::net
