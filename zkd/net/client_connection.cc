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
  if (parked_.empty()) return;
  const bool everyone = !over_limit_();
  std::vector<std::shared_ptr<ClientConnection>> woken;
  for (auto it = parked_.begin(); it != parked_.end();) {
    auto connection = it->second.lock();
    if (connection == nullptr || everyone || exempt_(it->first)) {
      if (connection) woken.push_back(std::move(connection));
      it = parked_.erase(it);
    } else {
      ++it;
    }
  }
  // After the map is settled: a woken connection may park again at once.
  for (auto& connection : woken) connection->resume_reading();
}

void ReadGate::recheck(ConnectionId id) {
  if (parked_.empty()) return;  // the common case: every answer rechecks
  auto it = parked_.find(id);
  if (it == parked_.end() || !open(id)) return;
  auto connection = it->second.lock();
  parked_.erase(it);
  if (connection) connection->resume_reading();
}

void ReadGate::park(ConnectionId id, std::weak_ptr<ClientConnection> connection) {
  parked_.emplace(id, std::move(connection));
}

}  // namespace zkd::net
