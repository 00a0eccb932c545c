// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_status.h"

#include <fstream>
#include <sstream>

#include "zklab/process/four_letter_word.h"

namespace zk::lab {

std::string NodeStatus::role() const {
  if (state == DaemonState::kGone) return "down";
  if (state == DaemonState::kStopped) return "paused";
  return std::string(server_mode_name(mode));
}

void parse_srvr_figures(const std::string& srvr_answer, NodeStatus& status) {
  std::istringstream lines(srvr_answer);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("Zxid: ", 0) == 0) {
      status.zxid = line.substr(6);
    } else if (line.rfind("Connections: ", 0) == 0) {
      try {
        status.connections = std::stoll(line.substr(13));
      } catch (const std::exception&) {
        status.connections.reset();
      }
    }
  }
}

NodeStatus node_status(const LabNode& node, std::chrono::milliseconds srvr_deadline) {
  NodeStatus s;
  s.id = node.id;
  s.kind = node.kind;
  s.client_port = node.client_port;
  s.quorum_port = node.quorum_port;
  if (node.has_admin()) s.admin_port = node.admin_port;
  if (std::ifstream epoch(node.current_epoch_file()); epoch) {
    int64_t e = 0;
    if (epoch >> e) s.epoch = e;
  }
  s.pid = read_pid(node);
  if (s.pid) s.state = daemon_state(*s.pid, node.config());
  if (s.state != DaemonState::kRunning) return s;
  auto answer = four_letter_word("127.0.0.1", node.client_port, "srvr", srvr_deadline,
                                 node.client.tls_context);
  if (!answer) return s;
  s.mode = parse_server_mode(*answer);
  parse_srvr_figures(*answer, s);
  if (is_serving(s.mode)) {
    const auto figures =
        mntr("127.0.0.1", node.client_port, srvr_deadline, node.client.tls_context);
    if (auto it = figures.find("zk_global_sessions"); it != figures.end()) {
      try {
        s.sessions = std::stoll(it->second);
      } catch (const std::exception&) {
        s.sessions.reset();
      }
    }
  }
  return s;
}

std::vector<NodeStatus> lab_status(const std::vector<LabNode>& nodes) {
  std::vector<NodeStatus> out;
  for (const auto& n : nodes) out.push_back(node_status(n));
  return out;
}

}  // namespace zk::lab
