// SPDX-License-Identifier: Apache-2.0
#include "zklab/process/node_ports.h"

namespace zk::lab {

std::vector<NodePorts> pick_node_ports(int nodes, std::vector<PortReservation>& held) {
  // A held port is bound, so the kernel never picks it twice.
  auto next = [&held]() -> uint16_t {
    held.push_back(PortReservation::any());
    return held.back().port();
  };
  std::vector<NodePorts> ports(static_cast<size_t>(nodes));
  for (auto& p : ports) {
    p.client = next();
    p.quorum = next();
    p.election = next();
    p.admin = next();
    if (p.client == 0 || p.quorum == 0 || p.election == 0 || p.admin == 0) return {};
  }
  return ports;
}

std::string server_line(int id, const NodePorts& ports, bool observer) {
  return "server." + std::to_string(id) + "=127.0.0.1:" + std::to_string(ports.quorum) + ":" +
         std::to_string(ports.election) + (observer ? ":observer" : "") +
         (ports.client == 0 ? "" : ";127.0.0.1:" + std::to_string(ports.client));
}

}  // namespace zk::lab
