// The ports of ensemble members on this machine and the zoo.cfg line that
// names them, shared by Ensemble (ensemble.h) and the zklab tool (lab_*.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace zk::lab {

struct NodePorts {
  uint16_t client = 0;
  uint16_t quorum = 0;
  uint16_t election = 0;
};

// Distinct free loopback ports (pick_free_port) for `nodes` nodes; empty when
// there are not enough.
std::vector<NodePorts> pick_node_ports(int nodes);

// "server.<id>=127.0.0.1:<quorum>:<election>[:observer];127.0.0.1:<client>".
std::string server_line(int id, const NodePorts& ports, bool observer);

}  // namespace zk::lab
