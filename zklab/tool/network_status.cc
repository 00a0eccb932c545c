// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/network_status.h"

#include "zklab/tool/lab_network.h"
#include "zklab/tool/relay_daemon.h"

namespace zk::lab {

NetworkStatus network_status(const std::filesystem::path& lab_dir,
                             std::chrono::milliseconds deadline) {
  NetworkStatus n;
  switch (relay_daemon_state(lab_dir)) {
    case RelayDaemonState::kNone:
      n.relay = "none";
      return n;
    case RelayDaemonState::kDown:
      n.relay = "down";
      return n;
    case RelayDaemonState::kRunning:
      break;
  }
  n.pid = relay_daemon_pid(lab_dir);
  n.faults = get_network(lab_dir, deadline, n.error);
  n.relay = n.faults ? "running" : "unreachable";
  return n;
}

void write_network_json(json::JsonWriter& w, const NetworkStatus& n) {
  w.begin_object().key("relay").string(n.relay).key("relay_pid");
  n.pid ? w.number(*n.pid) : w.null();
  w.key("cut");
  if (n.faults) {
    w.begin_array();
    for (const auto& [a, b] : n.faults->cut) w.begin_array().number(a).number(b).end_array();
    w.end_array();
  } else {
    w.null();
  }
  w.key("slow");
  if (n.faults) {
    w.begin_array();
    for (const auto& [node, delay] : n.faults->slow) {
      w.begin_object().key("node").number(node).key("delay_ms").number(delay.count()).end_object();
    }
    w.end_array();
  } else {
    w.null();
  }
  w.end_object();
}

std::string describe_network(const NetworkStatus& n) {
  if (n.relay == "none") return "direct peer links (a lab written before zklab had relays)";
  if (n.relay == "down") return "relay daemon not running";
  const std::string pid = n.pid ? " (pid " + std::to_string(*n.pid) + ")" : "";
  if (!n.faults) return "relay daemon" + pid + " does not answer: " + n.error;
  return "relay daemon" + pid + "; faults: " + describe_faults(*n.faults);
}

}  // namespace zk::lab
