#include "zklab/node_ports.h"

#include <set>

#include "zklab/zkd_process.h"

namespace zk::lab {

std::vector<NodePorts> pick_node_ports(int nodes) {
  std::set<uint16_t> taken;
  auto next = [&taken]() -> uint16_t {
    for (int attempt = 0; attempt < 100; ++attempt) {
      uint16_t port = pick_free_port();
      if (port != 0 && taken.insert(port).second) return port;
    }
    return 0;
  };
  std::vector<NodePorts> ports(static_cast<size_t>(nodes));
  for (auto& p : ports) {
    p.client = next();
    p.quorum = next();
    p.election = next();
    if (p.client == 0 || p.quorum == 0 || p.election == 0) return {};
  }
  return ports;
}

std::string server_line(int id, const NodePorts& ports, bool observer) {
  return "server." + std::to_string(id) + "=127.0.0.1:" + std::to_string(ports.quorum) + ":" +
         std::to_string(ports.election) + (observer ? ":observer" : "") +
         ";127.0.0.1:" + std::to_string(ports.client);
}

}  // namespace zk::lab
