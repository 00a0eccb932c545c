// SPDX-License-Identifier: Apache-2.0
// The peer network of a lab as `zklab status` shows it: whether its relay
// daemon runs, and the faults in force (lab_network.h).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "libzk/json/json_writer.h"
#include "zklab/relay/network_faults.h"

namespace zk::lab {

struct NetworkStatus {
  std::string relay;                    // "none" (no relays), "down", "running" or "unreachable"
  std::optional<pid_t> pid;             // the relay daemon's, while it runs
  std::optional<NetworkFaults> faults;  // when running
  std::string error;                    // when unreachable
};

// Asks the lab's relay daemon, if it runs, within `deadline`.
NetworkStatus network_status(const std::filesystem::path& lab_dir,
                             std::chrono::milliseconds deadline);

// {"relay":..,"relay_pid":..,"cut":[[a,b],..],"slow":[{"node":n,"delay_ms":d},..]}
// (relay_pid, cut and slow null when unknown), as the value of a key of `w`.
void write_network_json(json::JsonWriter& w, const NetworkStatus& n);

// One line for people: "relay daemon (pid 12); faults: cut 1-3 2-3", ...
std::string describe_network(const NetworkStatus& n);

}  // namespace zk::lab
