// SPDX-License-Identifier: Apache-2.0
// The failure sequence of the ZooKeeper paper's Figure 8 (throughput upon
// failures), as a schedule `zkbench paper fig8` plays against a running
// ensemble, and the choice of whom each step strikes. Pure: the caller
// kills and restarts the processes (zklab/process/ensemble.h).
//
// The paper's events, one every `period` from the first (a step at k *
// period, the run ending at 12 * period):
//    1  kill a follower                 (2: restart it)
//    3  kill another follower, "2"      (4: restart it)
//    5  kill the leader, "3"            (6: restart it; the paper marks no
//                                        recovery, but two followers could
//                                        not fail at 4b without it)
//    7  kill a follower, "4a"
//    8  kill another follower, "4b"
//    9  restart both, "4c"
//   10  kill the leader, "5"
//   11  restart it, "6"
// On 5 servers (the paper's) the quorum holds throughout but for the
// elections after 3 and 5; on 3 servers 4b loses it until 4c.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace zk::bench {

enum class FaultAction {
  kKillFollower,  // a follower up now, preferably one no earlier step struck
  kKillLeader,    // the leader now
  kRestartDown,   // every node this schedule killed and has not restarted
};

struct FaultStep {
  std::chrono::milliseconds at{0};  // from the start of the load
  FaultAction action = FaultAction::kRestartDown;
  std::string mark;  // the paper's mark ("1", "4a"); empty for unmarked recoveries
};

// The paper's sequence with a step every `period`, in time order.
std::vector<FaultStep> paper_failure_sequence(std::chrono::milliseconds period);
// When the run of paper_failure_sequence(period) ends: 12 periods.
std::chrono::milliseconds paper_failure_run_length(std::chrono::milliseconds period);

// The most nodes of `schedule` down at once (each kill one more, each
// restart back to none).
int most_down(const std::vector<FaultStep>& schedule);
// True when `voters` voters keep a quorum (a majority up) through the
// schedule, elections apart.
bool keeps_quorum(const std::vector<FaultStep>& schedule, int voters);

// Whom a kKillFollower step strikes: of the `followers` up now, the lowest
// id no earlier step struck, else the lowest; nothing when there is none.
std::optional<int> pick_follower(const std::set<int>& followers, const std::set<int>& struck);

// "kill follower", "kill leader", "restart".
std::string fault_action_name(FaultAction action);

}  // namespace zk::bench
