// SPDX-License-Identifier: Apache-2.0
#include "zkd/net/client_connection.h"

#include <utility>

namespace zkd::net {

boost::asio::ip::tcp::endpoint unmapped(const boost::asio::ip::tcp::endpoint& endpoint) {
  auto address = endpoint.address();
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return {boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6()),
            endpoint.port()};
  }
  return endpoint;
}

std::string ClientConnection::remote_text() const {
  return "/" + remote().address().to_string() + ":" + std::to_string(remote().port());
}

void ReadGate::recheck() {
  if (parked_.empty() || over_limit_()) return;
  auto parked = std::move(parked_);
  parked_.clear();
  for (auto& weak : parked) {
    if (auto connection = weak.lock()) connection->resume_reading();
  }
}

void ReadGate::park(std::weak_ptr<ClientConnection> connection) {
  parked_.push_back(std::move(connection));
}

}  // namespace zkd::net
