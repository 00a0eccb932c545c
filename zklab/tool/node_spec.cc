// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/node_spec.h"

#include <random>

namespace zk::lab {

std::optional<int> resolve_node(const std::vector<NodeStatus>& status, const std::string& spec,
                                RandomAmong among, std::ostream& err) {
  if (!spec.empty() && spec.find_first_not_of("0123456789") == std::string::npos) {
    const int id = std::stoi(spec.size() > 4 ? "0" : spec);
    if (id >= 1 && id <= static_cast<int>(status.size())) return id;
    err << "zklab: no node " << spec << " (the lab has nodes 1.." << status.size() << ")\n";
    return std::nullopt;
  }
  if (spec != "leader" && spec != "follower" && spec != "random") {
    err << "zklab: NODE is an id, leader, follower or random, not '" << spec << "'\n";
    return std::nullopt;
  }
  std::vector<int> candidates;
  for (const auto& s : status) {
    bool match = false;
    if (spec == "leader") {
      match = s.serving() && s.mode == ServerMode::kLeader;
    } else if (spec == "follower") {
      match = s.serving() && s.mode == ServerMode::kFollower;
    } else if (among == RandomAmong::kDown) {
      match = !s.alive();
    } else if (among == RandomAmong::kPaused) {
      match = s.state == DaemonState::kStopped;
    } else {
      match = s.alive();
    }
    if (match) candidates.push_back(s.id);
  }
  if (candidates.empty()) {
    err << "zklab: no node is " << (spec == "random" ? "a candidate" : "the " + spec) << " now\n";
    return std::nullopt;
  }
  if (spec != "random") return candidates.front();
  std::random_device seed;
  std::mt19937 rng(seed());
  return candidates[std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(rng)];
}

}  // namespace zk::lab
