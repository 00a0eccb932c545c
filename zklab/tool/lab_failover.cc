// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_failover.h"

#include <cstdio>
#include <optional>
#include <thread>

#include "zklab/tool/lab_network.h"

namespace zk::lab {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;

// How long the load goes on after a rejoin that came after the duration.
constexpr auto kAfterLateRejoin = std::chrono::seconds(1);
// The parent of the load's znodes.
constexpr const char* kLoadRoot = "/zklab-failover";

bool serves_as_learner(std::string_view role) { return role_serves(role) && !is_leader(role); }

// How a fault is named, struck and undone.
struct FaultSteps {
  const char* verb;     // "kill": the option's word, and the title's
  const char* noun;     // "kill": "before the kill"
  const char* undoing;  // "restart": "after its restart"
  EventKind struck;
  EventKind undone;
};

FaultSteps steps_of(FailoverFault fault) {
  switch (fault) {
    case FailoverFault::kPause:
      return {"pause", "pause", "resume", EventKind::kPause, EventKind::kResume};
    case FailoverFault::kIsolate:
      return {"isolate", "isolation", "heal", EventKind::kIsolate, EventKind::kHeal};
    case FailoverFault::kKill:
      break;
  }
  return {"kill", "kill", "restart", EventKind::kKill, EventKind::kRestart};
}

LabExit strike(const LabContext& ctx, FailoverFault fault, int node) {
  switch (fault) {
    case FailoverFault::kPause:
      return lab_node(ctx, NodeAction::kPause, std::to_string(node), false);
    case FailoverFault::kIsolate:
      return lab_isolate(ctx, std::to_string(node));
    case FailoverFault::kKill:
      break;
  }
  return lab_node(ctx, NodeAction::kKill, std::to_string(node), false);
}

LabExit undo(const LabContext& ctx, FailoverFault fault, int node) {
  switch (fault) {
    case FailoverFault::kPause:
      return lab_node(ctx, NodeAction::kResume, std::to_string(node), false);
    case FailoverFault::kIsolate:
      return lab_heal(ctx);
    case FailoverFault::kKill:
      break;
  }
  return lab_node(ctx, NodeAction::kStart, std::to_string(node), false);
}

}  // namespace

LabExit lab_failover(const LabContext& ctx, const FailoverOptions& o) {
  const std::string bad_load = check_experiment_load(o.load);
  if (!(o.kill_at < o.restart_at && o.restart_at < o.duration) || !bad_load.empty()) {
    ctx.err << "zklab: failover needs --kill-at < --restart-at < --duration, "
            << (bad_load.empty() ? "and a load that can run" : bad_load) << "\n";
    return LabExit::kUsage;
  }
  const auto lab = load_led_lab(ctx);
  if (!lab) return LabExit::kError;
  const std::vector<LabNode>& nodes = lab->nodes;

  const LoadOptions lo = lab_load_options(ctx, nodes, o.load, kLoadRoot);
  Load load(lo);
  if (!connect_load(ctx, load)) return LabExit::kError;
  const FaultSteps fault = steps_of(o.fault);
  ctx.out << "failover: " << describe_load(o.load, nodes.size()) << "; " << fault.verb
          << " the leader at " << seconds_text(o.kill_at) << ", " << fault.undoing << " at "
          << seconds_text(o.restart_at) << ", end at " << seconds_text(o.duration) << "\n"
          << std::flush;

  const auto origin = load.start();
  auto watcher = watch_roles(nodes, origin);
  Timeline timeline;
  timeline.bucket = lo.bucket;
  // Node commands print into this; their lines are passed on with a time.
  QuietContext quiet(ctx);

  // The schedule of the experiment: wait for the chosen instants.
  std::this_thread::sleep_until(origin + o.kill_at);
  const int struck = current_leader(nodes);
  if (struck == 0) {
    ctx.err << "zklab: no node is the leader at " << seconds_text(o.kill_at) << "\n";
    return LabExit::kError;
  }
  const auto fault_time = Clock::now();
  if (strike(quiet.ctx, o.fault, struck) != LabExit::kOk) {
    ctx.err << quiet.err.str();
    return LabExit::kError;
  }
  // Only writes sent once the old leader is struck count as after the fault:
  // one sent while it was dying may still have been committed by it.
  load.mark(Clock::now());
  const microseconds fault_at = since(origin, fault_time);
  timeline.add({fault_at, fault.struck, struck, ""});
  ctx.out << seconds_text(fault_at) << ": " << quiet.last_line() << "\n" << std::flush;

  std::this_thread::sleep_until(origin + o.restart_at);
  const auto undo_time = Clock::now();
  const microseconds undo_at = since(origin, undo_time);
  if (undo(quiet.ctx, o.fault, struck) == LabExit::kOk) {
    timeline.add({undo_at, fault.undone, struck, ""});
    ctx.out << seconds_text(undo_at) << ": " << quiet.last_line() << "\n" << std::flush;
  } else {
    ctx.err << quiet.err.str();  // it will not rejoin: reported below
  }

  // A paused or isolated leader may say it leads for a moment after it is
  // back: it has rejoined once it serves under the new leader.
  bool (*const serves_again)(std::string_view) =
      o.fault == FailoverFault::kKill ? role_serves : serves_as_learner;
  const auto rejoined = [struck, serves_again](const RoleWatcher::Roles& roles) {
    auto it = roles.find(struck);
    return it != roles.end() && serves_again(it->second);
  };
  std::this_thread::sleep_until(origin + o.duration);
  auto end = Clock::now();
  if (!rejoined(watcher->roles())) {
    ctx.out << "waiting up to " << ctx.deadline.count() / 1000 << " s for node " << struck
            << " to serve again\n"
            << std::flush;
    // Once it does, the load goes on a little so that the throughput after
    // the rejoin is measured too.
    if (watcher->wait_until(rejoined, Clock::now() + ctx.deadline)) {
      std::this_thread::sleep_for(kAfterLateRejoin);
    }
    end = Clock::now();
  }
  watcher->stop();
  load.stop();

  timeline.buckets = load.buckets(std::max(end, origin + o.duration));
  for (auto& e : watcher->events()) timeline.add(std::move(e));
  std::optional<TimelineEvent> leader, rejoin;
  if (const auto* e = timeline.first(EventKind::kRole, fault_at, 0, is_leader)) {
    leader = TimelineEvent{e->at, EventKind::kNewLeader, e->node, ""};
  }
  if (const auto* e = timeline.first(EventKind::kRole, undo_at, struck, serves_again)) {
    rejoin = TimelineEvent{e->at, EventKind::kRejoin, struck, e->role};
  }
  if (leader) timeline.add(*leader);
  if (rejoin) timeline.add(*rejoin);
  const LoadRecovery recovery = load.recovery();

  if (leader) {
    ctx.out << "time to new leader: " << ms_text(leader->at - fault_at) << " (node " << leader->node
            << ")\n";
  } else {
    ctx.out << "time to new leader: none seen\n";
  }
  if (recovery.first) {
    ctx.out << "time to first write: " << ms_text(since(fault_time, *recovery.first)) << "\n";
  } else {
    ctx.out << "time to first write: none succeeded\n";
  }
  if (rejoin) {
    ctx.out << "time to rejoin: " << ms_text(rejoin->at - fault_at) << " (node " << struck << " as "
            << rejoin->role << ", " << ms_text(rejoin->at - undo_at) << " after its "
            << fault.undoing << ")\n";
  } else {
    ctx.out << "time to rejoin: node " << struck << " did not serve again\n";
  }
  ctx.out << "before the " << fault.noun << ": "
          << rates_text(timeline.rates(microseconds(0), fault_at)) << "\n";
  if (rejoin) {
    ctx.out << "after the rejoin: " << rates_text(timeline.rates(rejoin->at, timeline.end()))
            << "\n";
  }
  ctx.out << requests_text(timeline.totals()) << "\n";
  for (const auto& e : load.ended()) ctx.out << "ended: " << e << "\n";

  SvgOptions so;
  so.title = "zklab failover: " + describe_load(o.load, nodes.size()) + "; " + fault.verb +
             " leader node " + std::to_string(struck) + " at " + seconds_text(o.kill_at);
  bool failed = !write_timeline_files(ctx, timeline, so, "failover", o.csv, o.svg);
  if (!rejoin) {
    ctx.err << "zklab: node " << struck << " did not serve again by the end ("
            << seconds_text(o.duration) << " + " << ctx.deadline.count() / 1000 << " s)\n";
    failed = true;
  }
  return failed ? LabExit::kError : LabExit::kOk;
}

}  // namespace zk::lab
