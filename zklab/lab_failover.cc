// SPDX-License-Identifier: Apache-2.0
#include "zklab/lab_failover.h"

#include <cstdio>
#include <optional>
#include <sstream>
#include <thread>

#include "zklab/lab_network.h"
#include "zklab/lab_status.h"
#include "zklab/load.h"
#include "zklab/role_watcher.h"
#include "zklab/timeline_csv.h"
#include "zklab/timeline_svg.h"

namespace zk::lab {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;

// Between two rounds of srvr questions by the role watcher.
constexpr auto kRolePoll = std::chrono::milliseconds(50);
// How long the load goes on after a rejoin that came after the duration.
constexpr auto kAfterLateRejoin = std::chrono::seconds(1);
// The parent of the load's znodes.
constexpr const char* kLoadRoot = "/zklab-failover";

microseconds since(Clock::time_point origin, Clock::time_point t) {
  return std::chrono::duration_cast<microseconds>(t - origin);
}

std::string format(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string ms(microseconds d) { return format("%.0f ms", static_cast<double>(d.count()) / 1e3); }
std::string seconds(microseconds d) {
  return format("%.3f s", static_cast<double>(d.count()) / 1e6);
}

std::string rates_text(const Rates& r) {
  if (r.seconds <= 0) return "n/a (no whole 100 ms bucket)";
  return format("%.0f", r.writes_per_s) + " writes/s, " + format("%.0f", r.reads_per_s) +
         " reads/s (" + format("%.1f", r.seconds) + " s)";
}

// The last line a node command printed, without its newline.
std::string last_line(const std::ostringstream& s) {
  std::string text = s.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text.substr(text.find_last_of('\n') == std::string::npos ? 0
                                                                  : text.find_last_of('\n') + 1);
}

// The id of the node that serves as leader now; 0 when none does.
int current_leader(const std::vector<LabNode>& nodes) {
  for (const auto& s : lab_status(nodes)) {
    if (s.serving() && s.mode == ServerMode::kLeader) return s.id;
  }
  return 0;
}

bool is_leader(std::string_view role) { return role == server_mode_name(ServerMode::kLeader); }
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
  if (!(o.kill_at < o.restart_at && o.restart_at < o.duration) || o.clients < 1 ||
      o.in_flight < 1 || o.value_bytes < 0 || o.read_ratio < 0 || o.read_ratio > 1) {
    ctx.err << "zklab: failover needs --kill-at < --restart-at < --duration, at least one "
               "client and request in flight, and --reads between 0 and 1\n";
    return LabExit::kUsage;
  }
  const auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  if (current_leader(*nodes) == 0) {
    ctx.err << "zklab: no node of the lab in " << ctx.dir.string()
            << " is the leader now (see `zklab status`)\n";
    return LabExit::kError;
  }

  LoadOptions lo;
  for (const auto& node : *nodes) lo.addresses.push_back(node.address());
  lo.sessions = o.clients;
  lo.in_flight = o.in_flight;
  lo.read_ratio = o.read_ratio;
  lo.value_bytes = o.value_bytes;
  lo.root = kLoadRoot;
  lo.connect_deadline = ctx.deadline;
  lo.security = nodes->front().client;
  Load load(lo);
  if (auto error = load.connect(); !error.empty()) {
    ctx.err << "zklab: the load did not start: " << error << "\n";
    return LabExit::kError;
  }
  const FaultSteps fault = steps_of(o.fault);
  ctx.out << "failover: " << o.clients << " sessions over " << nodes->size() << " nodes, "
          << format("%.0f", o.read_ratio * 100) << "% reads, " << o.in_flight << " in flight, "
          << o.value_bytes << "-byte values; " << fault.verb << " the leader at "
          << seconds(o.kill_at) << ", " << fault.undoing << " at " << seconds(o.restart_at)
          << ", end at " << seconds(o.duration) << "\n"
          << std::flush;

  const auto origin = load.start();
  RoleWatcher watcher(
      [&nodes] {
        RoleWatcher::Roles roles;
        for (const auto& s : lab_status(*nodes)) roles[s.id] = s.role();
        return roles;
      },
      origin, kRolePoll);
  Timeline timeline;
  timeline.bucket = lo.bucket;
  // Node commands print into these; their lines are passed on with a time.
  std::ostringstream node_out, node_err;
  const LabContext quiet{ctx.dir, ctx.zkd, ctx.deadline, node_out, node_err, ctx.zkd_environment};

  // The schedule of the experiment: wait for the chosen instants.
  std::this_thread::sleep_until(origin + o.kill_at);
  const int struck = current_leader(*nodes);
  if (struck == 0) {
    ctx.err << "zklab: no node is the leader at " << seconds(o.kill_at) << "\n";
    return LabExit::kError;
  }
  const auto fault_time = Clock::now();
  if (strike(quiet, o.fault, struck) != LabExit::kOk) {
    ctx.err << node_err.str();
    return LabExit::kError;
  }
  // Only writes sent once the old leader is struck count as after the fault:
  // one sent while it was dying may still have been committed by it.
  load.mark(Clock::now());
  const microseconds fault_at = since(origin, fault_time);
  timeline.add({fault_at, fault.struck, struck, ""});
  ctx.out << seconds(fault_at) << ": " << last_line(node_out) << "\n" << std::flush;

  std::this_thread::sleep_until(origin + o.restart_at);
  const auto undo_time = Clock::now();
  const microseconds undo_at = since(origin, undo_time);
  if (undo(quiet, o.fault, struck) == LabExit::kOk) {
    timeline.add({undo_at, fault.undone, struck, ""});
    ctx.out << seconds(undo_at) << ": " << last_line(node_out) << "\n" << std::flush;
  } else {
    ctx.err << node_err.str();  // it will not rejoin: reported below
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
  if (!rejoined(watcher.roles())) {
    ctx.out << "waiting up to " << ctx.deadline.count() / 1000 << " s for node " << struck
            << " to serve again\n"
            << std::flush;
    // Once it does, the load goes on a little so that the throughput after
    // the rejoin is measured too.
    if (watcher.wait_until(rejoined, Clock::now() + ctx.deadline)) {
      std::this_thread::sleep_for(kAfterLateRejoin);
    }
    end = Clock::now();
  }
  watcher.stop();
  load.stop();

  timeline.buckets = load.buckets(std::max(end, origin + o.duration));
  for (auto& e : watcher.events()) timeline.add(std::move(e));
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
    ctx.out << "time to new leader: " << ms(leader->at - fault_at) << " (node " << leader->node
            << ")\n";
  } else {
    ctx.out << "time to new leader: none seen\n";
  }
  if (recovery.first) {
    ctx.out << "time to first write: " << ms(since(fault_time, *recovery.first)) << "\n";
  } else {
    ctx.out << "time to first write: none succeeded\n";
  }
  if (rejoin) {
    ctx.out << "time to rejoin: " << ms(rejoin->at - fault_at) << " (node " << struck << " as "
            << rejoin->role << ", " << ms(rejoin->at - undo_at) << " after its " << fault.undoing
            << ")\n";
  } else {
    ctx.out << "time to rejoin: node " << struck << " did not serve again\n";
  }
  ctx.out << "before the " << fault.noun << ": "
          << rates_text(timeline.rates(microseconds(0), fault_at)) << "\n";
  if (rejoin) {
    ctx.out << "after the rejoin: " << rates_text(timeline.rates(rejoin->at, timeline.end()))
            << "\n";
  }
  const LoadBucket totals = timeline.totals();
  std::string errors;
  for (const auto& [code, count] : totals.errors) {
    errors += (errors.empty() ? "" : ", ") + std::string(zk::wire::error_name(code)) + " " +
              std::to_string(count);
  }
  ctx.out << "requests: " << totals.writes << " writes, " << totals.reads
          << " reads; errors: " << (errors.empty() ? "none" : errors) << "\n";
  for (const auto& e : load.ended()) ctx.out << "ended: " << e << "\n";

  const auto csv = o.csv.empty() ? ctx.dir / "failover.csv" : o.csv;
  const auto svg = o.svg.empty() ? ctx.dir / "failover.svg" : o.svg;
  SvgOptions so;
  so.title = "zklab failover: " + std::to_string(o.clients) + " sessions, " +
             format("%.0f", o.read_ratio * 100) + "% reads; " + fault.verb + " leader node " +
             std::to_string(struck) + " at " + format("%.1f s", o.kill_at.count() / 1e3);
  bool failed = false;
  for (const auto& error :
       {write_timeline_csv(csv, timeline), write_timeline_svg(svg, timeline, so)}) {
    if (!error.empty()) {
      ctx.err << "zklab: " << error << "\n";
      failed = true;
    }
  }
  ctx.out << "csv: " << std::filesystem::absolute(csv).string() << "\n"
          << "svg: " << std::filesystem::absolute(svg).string() << "\n";
  if (!rejoin) {
    ctx.err << "zklab: node " << struck << " did not serve again by the end ("
            << seconds(o.duration) << " + " << ctx.deadline.count() / 1000 << " s)\n";
    failed = true;
  }
  return failed ? LabExit::kError : LabExit::kOk;
}

}  // namespace zk::lab
