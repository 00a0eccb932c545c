// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_roll.h"

#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "zklab/tool/lab_status.h"

namespace zk::lab {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;

// The parent of the load's znodes.
constexpr const char* kLoadRoot = "/zklab-roll";

// The order of the restarts: every node but the leader by id, the leader last.
std::vector<int> restart_order(const std::vector<LabNode>& nodes, int leader) {
  std::vector<int> order;
  for (const auto& s : lab_status(nodes)) {
    if (s.id != leader) order.push_back(s.id);
  }
  order.push_back(leader);
  return order;
}

}  // namespace

LabExit lab_roll(const LabContext& ctx, const RollOptions& o) {
  if (const std::string bad = check_experiment_load(o.load); !bad.empty()) {
    ctx.err << "zklab: roll needs " << bad << "\n";
    return LabExit::kUsage;
  }
  const auto lab = load_whole_led_lab(ctx);
  if (!lab) return LabExit::kError;
  const std::vector<LabNode>& nodes = lab->nodes;

  const LoadOptions lo = lab_load_options(ctx, nodes, o.load, kLoadRoot);
  Load load(lo);
  if (!connect_load(ctx, load)) return LabExit::kError;
  const char* how = o.kill ? "SIGKILL and start" : "SIGTERM and start";
  ctx.out << "roll: " << describe_load(o.load, nodes.size()) << "; every node in turn, the leader "
          << "last (" << how << ", " << ctx.zkd << "), " << seconds_text(o.settle)
          << " of load before, between and after\n"
          << std::flush;

  const auto origin = load.start();
  auto watcher = watch_roles(nodes, origin);
  Timeline timeline;
  timeline.bucket = lo.bucket;
  QuietContext quiet(ctx);
  bool failed = false;

  std::this_thread::sleep_for(o.settle);
  const microseconds first_stop = since(origin, Clock::now());
  // Followers first; the leader is the one leading once they are back.
  std::vector<int> order = restart_order(nodes, current_leader(nodes));
  for (size_t i = 0; i < order.size() && !failed; ++i) {
    const int leader = current_leader(nodes);
    if (i + 1 == order.size() && leader != 0) order[i] = leader;
    const int id = order[i];
    const bool was_leader = leader == id;
    if (was_leader && o.transfer) {
      const auto asked = Clock::now();
      timeline.add({since(origin, asked), EventKind::kTransfer, id, ""});
      if (const int next = transfer_leadership(quiet.ctx, nodes, id); next != 0) {
        ctx.out << seconds_text(since(origin, asked)) << ": leadership moved from node " << id
                << " to node " << next << " in " << ms_text(since(asked, Clock::now())) << "\n";
      } else {
        // An older zkd (the one an upgrade replaces) knows no ydld.
        std::string why = std::exchange(quiet.err, std::ostringstream()).str();
        while (!why.empty() && why.back() == '\n') why.pop_back();
        ctx.out << seconds_text(since(origin, asked)) << ": no transfer (" << why
                << "); restarting the leader as it is\n";
      }
      ctx.out << std::flush;
    }
    const auto stop_time = Clock::now();
    timeline.add(
        {since(origin, stop_time), o.kill ? EventKind::kKill : EventKind::kRestart, id, ""});
    const bool stopped =
        o.kill ? lab_node(quiet.ctx, NodeAction::kKill, std::to_string(id), false) == LabExit::kOk
               : lab_node(quiet.ctx, NodeAction::kStop, std::to_string(id), false) == LabExit::kOk;
    if (!stopped ||
        lab_node(quiet.ctx, NodeAction::kStart, std::to_string(id), true) != LabExit::kOk) {
      ctx.err << quiet.err.str();
      failed = true;
      break;
    }
    const auto served = Clock::now();
    timeline.add({since(origin, served), EventKind::kRejoin, id, ""});
    ctx.out << seconds_text(since(origin, stop_time)) << ": restarted node " << id
            << (was_leader ? " (leader)" : "") << ", serving again after "
            << ms_text(since(stop_time, served)) << "\n"
            << std::flush;
    std::this_thread::sleep_for(o.settle);
  }
  const auto end = Clock::now();
  watcher->stop();
  load.stop();

  timeline.buckets = load.buckets(end);
  for (auto& e : watcher->events()) timeline.add(std::move(e));
  print_write_outcome(ctx, load, timeline, mark_new_leaders(timeline, first_stop));

  SvgOptions so;
  so.title = "zklab roll: " + describe_load(o.load, nodes.size()) + "; " + how;
  failed = !write_timeline_files(ctx, timeline, so, "roll", o.csv, o.svg) || failed;
  return failed ? LabExit::kError : LabExit::kOk;
}

}  // namespace zk::lab
