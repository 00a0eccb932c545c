// SPDX-License-Identifier: Apache-2.0
// The ports of ensemble members on this machine and the zoo.cfg line that
// names them, shared by Ensemble (ensemble.h) and the zklab tool (lab_*.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zklab/process/port_reservation.h"

namespace zk::lab {

struct NodePorts {
  uint16_t client = 0;
  uint16_t quorum = 0;
  uint16_t election = 0;
  // The admin server's (HTTP) port; server_line does not name it.
  uint16_t admin = 0;
};

// Distinct free loopback ports (all four of NodePorts) for `nodes` nodes, each reserved by an entry
// appended to `held` (port_reservation.h): keep those until the nodes listen.
// Empty when there are not enough.
std::vector<NodePorts> pick_node_ports(int nodes, std::vector<PortReservation>& held);

// "server.<id>=127.0.0.1:<quorum>:<election>[:observer];127.0.0.1:<client>",
// without the client part when ports.client is 0.
std::string server_line(int id, const NodePorts& ports, bool observer);

}  // namespace zk::lab
