// SPDX-License-Identifier: Apache-2.0
// The nemesis of `zklab check`: faults on a running lab at random (seeded)
// times, one at a time, each undone after a while, and every action logged
// with its time. The faults go through the zklab commands themselves
// (lab_node for kill/start and pause/resume, lab_network.h for partitions
// and bridges), with their output captured into the log; the file damage of
// corrupt and the failpoints of crashpoint are node_faults.h, the shifted
// clock of skew clock_skew.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "zklab/tool/lab_check.h"
#include "zklab/tool/lab_commands.h"
#include "zklab/tool/lab_state.h"

namespace zk::lab::check {

struct NemesisEvent {
  int64_t at_ns = 0;  // steady_now_ns() when the action was taken
  std::string what;   // e.g. "killed node 2 (leader, pid 4242)"
};

class CheckNemesis {
 public:
  // Between two faults, and how long a fault lasts (drawn uniformly).
  static constexpr std::chrono::milliseconds kMinGap{1000}, kMaxGap{3000};
  static constexpr std::chrono::milliseconds kMinHold{1000}, kMaxHold{2000};

  // `ctx` names the lab and the zkd that restarts a killed node; what the
  // commands print goes to the log, not to ctx.out/err. `nodes`: read_lab of
  // the lab. `kinds` may be empty (then run only waits).
  CheckNemesis(const LabContext& ctx, std::vector<LabNode> nodes, std::vector<Nemesis> kinds,
               uint64_t seed);

  // Until `until`: waits a gap, injects one fault of a kind drawn from
  // `kinds` on a node drawn (the leader or any node, for a partition also a
  // minority of random nodes, for a bridge the bridge node), waits its hold
  // (cut short at `until`) and undoes it; again while a gap and the shortest
  // hold still end by `until`. Returns once the last fault is undone (an undo
  // that waits for a node to serve may outlast `until`). Call once, from one
  // thread.
  void run(std::chrono::steady_clock::time_point until);

  // Undoes whatever may be left: resumes paused nodes, starts nodes that are
  // down, removes every network fault (when partition or bridge is among the kinds);
  // then waits (ctx.deadline) until every node serves under one leader.
  // Empty when it does, else why not.
  std::string heal();

  const std::vector<NemesisEvent>& log() const { return log_; }
  int faults() const { return faults_; }
  // Faults injected, by kind.
  const std::map<Nemesis, int>& counts() const { return counts_; }
  // What the faults whose outcome varies came to, counted by outcome:
  // "crashpoint fired", "crashpoint not reached", "corrupt: started",
  // "corrupt: refused to start", "skew: clock shifted".
  const std::map<std::string, int>& outcomes() const { return outcomes_; }
  // Actions that failed (also in the log).
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  // One fault; its undo, or an empty function when it could not be injected.
  std::function<void()> inject(Nemesis kind);
  // lab_node on node `id` (a start: with `environment` added to zkd's),
  // logged; true when it exited kOk.
  bool node_action(NodeAction action, int id, std::vector<std::string> environment = {});
  // Removes node `id`'s data (version-2 but its session.key; myid stays);
  // the node must be down.
  void wipe(int id);
  // Undo of crashpoint: whether node `id` crashed at `point` (else kills
  // it), then starts it unarmed.
  void end_crashpoint(int id, const std::string& point);
  // Undo of skew: whether node `id`'s log shows its clock `offset_s` off
  // (the newest line's time), then restarts it with the machine's clock.
  void end_skew(int id, int64_t offset_s);
  // Undo of corrupt: waits until node `id` serves, or has refused to start
  // naming the damage (then wipes it and starts it again).
  void end_corrupt(int id);
  // Undo of reconfig (and heal): adds node `id` back by reconfig, again
  // until it is a member or ctx.deadline passes (the removal may still be
  // moving leadership); true once it is.
  bool add_back(int id);
  // The ids /zookeeper/config names now; empty when no node answers.
  std::set<int> members();
  // set_network with these cuts, logged as `what`; true on success.
  bool cut(const std::set<std::pair<int, int>>& links, const std::string& what);
  void note(std::string what);
  void fail(std::string what);
  int pick_target();  // the leader or any node (ids from 1)
  std::chrono::milliseconds draw(std::chrono::milliseconds lo, std::chrono::milliseconds hi);

  const LabContext& ctx_;
  std::vector<LabNode> nodes_;
  std::vector<Nemesis> kinds_;
  std::mt19937_64 rng_;
  std::vector<std::string> failpoints_;  // of the zkd, when crashpoint is among the kinds
  std::filesystem::path faketime_;       // libfaketime, when skew is among the kinds
  std::vector<NemesisEvent> log_;
  std::vector<std::string> errors_;
  int faults_ = 0;
  std::map<Nemesis, int> counts_;
  std::map<std::string, int> outcomes_;
};

}  // namespace zk::lab::check
