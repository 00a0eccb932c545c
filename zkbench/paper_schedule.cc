// SPDX-License-Identifier: Apache-2.0
#include "zkbench/paper_schedule.h"

#include <algorithm>

namespace zk::bench {

std::vector<FaultStep> paper_failure_sequence(std::chrono::milliseconds period) {
  struct Step {
    int k;
    FaultAction action;
    const char* mark;
  };
  static constexpr Step kSteps[] = {
      {1, FaultAction::kKillFollower, "1"},  {2, FaultAction::kRestartDown, ""},
      {3, FaultAction::kKillFollower, "2"},  {4, FaultAction::kRestartDown, ""},
      {5, FaultAction::kKillLeader, "3"},    {6, FaultAction::kRestartDown, ""},
      {7, FaultAction::kKillFollower, "4a"}, {8, FaultAction::kKillFollower, "4b"},
      {9, FaultAction::kRestartDown, "4c"},  {10, FaultAction::kKillLeader, "5"},
      {11, FaultAction::kRestartDown, "6"},
  };
  std::vector<FaultStep> out;
  for (const Step& s : kSteps) out.push_back({period * s.k, s.action, s.mark});
  return out;
}

std::chrono::milliseconds paper_failure_run_length(std::chrono::milliseconds period) {
  return period * 12;
}

int most_down(const std::vector<FaultStep>& schedule) {
  int down = 0, most = 0;
  for (const FaultStep& s : schedule) {
    down = s.action == FaultAction::kRestartDown ? 0 : down + 1;
    most = std::max(most, down);
  }
  return most;
}

bool keeps_quorum(const std::vector<FaultStep>& schedule, int voters) {
  return voters - most_down(schedule) > voters / 2;
}

std::optional<int> pick_follower(const std::set<int>& followers, const std::set<int>& struck) {
  for (int id : followers) {
    if (!struck.contains(id)) return id;
  }
  if (followers.empty()) return std::nullopt;
  return *followers.begin();
}

std::string fault_action_name(FaultAction action) {
  switch (action) {
    case FaultAction::kKillFollower:
      return "kill follower";
    case FaultAction::kKillLeader:
      return "kill leader";
    case FaultAction::kRestartDown:
      return "restart";
  }
  return "?";
}

}  // namespace zk::bench
