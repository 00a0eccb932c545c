// SPDX-License-Identifier: Apache-2.0
// What one node of a lab is now: its process (lab_daemon.h) and, when it
// runs, what it answers to `srvr` (mode, last zxid, connections).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zklab/process/server_status.h"
#include "zklab/tool/lab_daemon.h"
#include "zklab/tool/lab_state.h"

namespace zk::lab {

struct NodeStatus {
  int id = 0;
  Flavour kind = Flavour::kZkd;  // what it runs (lab_state.h)
  uint16_t client_port = 0;
  std::optional<pid_t> pid;  // the recorded pid (whether or not it still runs)
  DaemonState state = DaemonState::kGone;
  ServerMode mode = ServerMode::kUnreachable;  // kUnreachable unless it runs and answered
  std::string zxid;                            // "0x..." from srvr; empty if unknown
  std::optional<int64_t> connections;          // from srvr
  uint16_t quorum_port = 0;
  uint16_t admin_port = 0;          // its admin server's; 0: none (LabNode::has_admin)
  std::optional<int64_t> epoch;     // Zab's current epoch, from the node's currentEpoch file
  std::optional<int64_t> sessions;  // live sessions (mntr zk_global_sessions), when serving

  bool alive() const { return state != DaemonState::kGone; }
  bool serving() const { return state == DaemonState::kRunning && is_serving(mode); }
  // "down", "paused", or the srvr mode ("leader", "not serving", "unreachable", ...).
  std::string role() const;
};

// Looks at `node` now: its pid file, process and currentEpoch file, then srvr
// (and, when it serves, mntr), each within `srvr_deadline`, if it runs and is
// not paused.
NodeStatus node_status(const LabNode& node,
                       std::chrono::milliseconds srvr_deadline = std::chrono::seconds(1));

// node_status of every node, in order.
std::vector<NodeStatus> lab_status(const std::vector<LabNode>& nodes);

// The "Zxid:" and "Connections:" lines of a srvr answer, into `status`.
void parse_srvr_figures(const std::string& srvr_answer, NodeStatus& status);

}  // namespace zk::lab
