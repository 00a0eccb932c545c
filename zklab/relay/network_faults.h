// SPDX-License-Identifier: Apache-2.0
// The network faults in force on a lab's peer links (lab_network.h has their
// meaning), and their one-line text form: what the relay daemon's control
// protocol carries (relay_control.h) and what its log shows.
//
// Text form: "cut=<links> slow=<delays>", both keys always present, in that
// order, separated by one space; <links> is a comma-separated list of "A-B"
// (A < B), <delays> one of "N:MS" (node N, MS milliseconds > 0); either list
// may be empty ("cut= slow=" is no fault).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace zk::lab {

struct NetworkFaults {
  std::set<std::pair<int, int>> cut;              // links (a, b) with a < b
  std::map<int, std::chrono::milliseconds> slow;  // node -> added delay on each of its links
  bool operator==(const NetworkFaults&) const = default;
};

std::string format_faults(const NetworkFaults& faults);
// Nothing for text that is not exactly a format_faults() output (a link with
// a >= b or ids < 1, a delay <= 0, a node twice, anything extra).
std::optional<NetworkFaults> parse_faults(std::string_view text);

// For people: "none", or e.g. "cut 1-3 2-3; slow 2 +50ms".
std::string describe_faults(const NetworkFaults& faults);

}  // namespace zk::lab
