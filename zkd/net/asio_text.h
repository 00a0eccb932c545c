// SPDX-License-Identifier: Apache-2.0
// Text for log lines about connections: a TCP endpoint as "address:port"
// (an IPv4-mapped IPv6 address as IPv4), and what a failed coroutine threw.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <exception>
#include <string>

namespace zkd::net {

inline std::string endpoint_text(const boost::asio::ip::tcp::endpoint& endpoint) {
  auto address = endpoint.address();
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    address = boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6());
  }
  return address.to_string() + ":" + std::to_string(endpoint.port());
}

inline std::string exception_text(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

}  // namespace zkd::net
