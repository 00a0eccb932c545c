// SPDX-License-Identifier: Apache-2.0
#include "zkbench/paper_failures.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "zkbench/paper_schedule.h"
#include "zklab/load/load.h"
#include "zklab/load/timeline_csv.h"
#include "zklab/load/timeline_svg.h"

namespace zk::bench {

namespace {

using Clock = std::chrono::steady_clock;
using zk::lab::EventKind;
using zk::lab::Flavour;
using zk::lab::Timeline;
using zk::lab::TimelineEvent;

// What one flavour's run gave.
struct Run {
  Flavour flavour;
  Timeline timeline;
  std::vector<int> struck;                            // per schedule step: the node (0: none)
  std::map<size_t, std::optional<double>> elections;  // step of a leader's kill -> ms to a new one
  bool ran = false;
};

std::chrono::microseconds since(Clock::time_point origin, Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t - origin);
}

Run run_flavour(const PaperLab& lab, const FailuresOptions& o, Flavour flavour,
                const std::vector<FaultStep>& schedule, std::vector<std::string>& problems) {
  Run run{flavour, {}, std::vector<int>(schedule.size(), 0), {}, false};
  run.timeline.bucket = o.bucket;
  auto ensemble = start_paper_ensemble(lab, flavour, o.size, problems);
  if (!ensemble) return run;
  const std::string who = flavour_label(flavour);

  zk::lab::LoadOptions lo;
  lo.addresses = ensemble_addresses(*ensemble);
  lo.sessions = o.sessions;
  lo.in_flight = o.in_flight;
  lo.read_ratio = o.read_percent / 100.0;
  lo.value_bytes = 1024;
  lo.root = "/zkbench-paper-failures";
  lo.threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 2);
  lo.bucket = o.bucket;
  zk::lab::Load load(lo);
  if (std::string e = load.connect(); !e.empty()) {
    problems.push_back(who + ": the load did not connect: " + e);
    return run;
  }
  const Clock::time_point origin = load.start();
  std::set<int> down, struck;
  for (size_t i = 0; i < schedule.size(); ++i) {
    const FaultStep& step = schedule[i];
    // The schedule is wall-clock: each step at its time from the start of the load.
    if (!paper_sleep_until(origin + step.at)) break;
    paper_progress(lab, who + ": " + (step.mark.empty() ? "" : step.mark + ": ") +
                            fault_action_name(step.action));
    auto event = [&](EventKind kind, int node, std::string mark) {
      TimelineEvent e{since(origin, Clock::now()), kind, node, ""};
      e.mark = std::move(mark);
      run.timeline.add(std::move(e));
    };
    if (step.action == FaultAction::kRestartDown) {
      bool first = true;
      for (int id : down) {
        if (std::string e = ensemble->respawn(id); !e.empty()) {
          problems.push_back(who + ": restart node " + std::to_string(id) + ": " + e);
        }
        event(EventKind::kRestart, id, first ? step.mark : "");
        first = false;
      }
      down.clear();
      continue;
    }
    const auto leader = ensemble->leader(
        std::min<std::chrono::milliseconds>(o.period / 2, std::chrono::seconds(10)));
    if (!leader) {
      problems.push_back(who + ", step " + step.mark + ": no leader to tell followers by");
      continue;
    }
    std::optional<int> target = leader;
    if (step.action == FaultAction::kKillFollower) {
      std::set<int> followers;
      for (int id : ensemble->ids()) {
        if (id != *leader && !down.contains(id)) followers.insert(id);
      }
      target = pick_follower(followers, struck);
    }
    if (!target) {
      problems.push_back(who + ", step " + step.mark + ": no follower up");
      continue;
    }
    const Clock::time_point killed = Clock::now();
    if (!ensemble->kill(*target)) {
      problems.push_back(who + ": node " + std::to_string(*target) + " did not die");
      continue;
    }
    event(EventKind::kKill, *target, step.mark);
    down.insert(*target);
    struck.insert(*target);
    run.struck[i] = *target;
    if (step.action == FaultAction::kKillLeader) {
      const auto next = ensemble->wait_for_leader(o.period * 3 / 4, {*target});
      if (next) {
        event(EventKind::kNewLeader, *next, "");
        run.elections[i] = std::chrono::duration<double, std::milli>(Clock::now() - killed).count();
      } else {
        run.elections[i] = std::nullopt;
      }
    }
  }
  Clock::time_point end = origin + paper_failure_run_length(o.period);
  if (!paper_sleep_until(end)) end = std::min(end, Clock::now());
  run.timeline.buckets = load.buckets(end);
  load.stop();
  for (const std::string& e : load.ended()) problems.push_back(who + ": " + e);
  run.ran = true;
  return run;
}

// The mean ops/s in [from, to) and the lowest bucket's.
struct Window {
  std::optional<double> mean;
  std::optional<double> lowest;
};

Window window(const Timeline& t, std::chrono::milliseconds from, std::chrono::milliseconds to) {
  Window w;
  const zk::lab::Rates r = t.rates(from, to);
  if (r.seconds > 0) w.mean = r.reads_per_s + r.writes_per_s;
  const double per_s = 1.0 / std::chrono::duration<double>(t.bucket).count();
  for (size_t i = 0; i < t.buckets.size(); ++i) {
    const auto start = t.bucket * static_cast<int64_t>(i);
    if (start < from || start + t.bucket > to) continue;
    const double v = static_cast<double>(t.buckets[i].reads + t.buckets[i].writes) * per_s;
    w.lowest = w.lowest ? std::min(*w.lowest, v) : v;
  }
  return w;
}

}  // namespace

PaperOutput paper_failures(const PaperLab& lab, const FailuresOptions& o) {
  PaperOutput out;
  const std::vector<FaultStep> schedule = paper_failure_sequence(o.period);
  if (!keeps_quorum(schedule, o.size)) {
    out.problems.push_back(std::to_string(o.size) + " servers lose the quorum at 4b (" +
                           std::to_string(most_down(schedule)) +
                           " followers down at once); the paper ran 5");
  }
  std::vector<Run> runs;
  for (Flavour f : lab.flavours) runs.push_back(run_flavour(lab, o, f, schedule, out.problems));

  PaperTable t;
  t.title = "Figure 8: operations per second between the steps of the failure sequence (" +
            std::to_string(o.size) + " servers, " + std::to_string(o.read_percent) + "% reads)";
  t.header = {"from s", "step"};
  for (const Run& r : runs) {
    t.header.push_back(flavour_label(r.flavour) + " node");
    t.header.push_back(flavour_label(r.flavour) + " mean");
    t.header.push_back(flavour_label(r.flavour) + " lowest");
  }
  const double period_s = std::chrono::duration<double>(o.period).count();
  for (size_t i = 0; i <= schedule.size(); ++i) {
    const auto from = i == 0 ? std::chrono::milliseconds(0) : schedule[i - 1].at;
    const auto to = i < schedule.size() ? schedule[i].at : paper_failure_run_length(o.period);
    std::vector<std::string> row = {format_fixed(std::chrono::duration<double>(from).count(), 0)};
    if (i == 0) {
      row.push_back("all up");
    } else {
      const FaultStep& s = schedule[i - 1];
      row.push_back((s.mark.empty() ? "" : s.mark + ": ") + fault_action_name(s.action));
    }
    for (const Run& r : runs) {
      const int node = i == 0 ? 0 : r.struck[i - 1];
      row.push_back(node == 0 ? "" : std::to_string(node));
      const Window w = r.ran ? window(r.timeline, from, to) : Window{};
      row.push_back(format_count(w.mean));
      row.push_back(format_count(w.lowest));
    }
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back("a step every " + format_fixed(period_s, 1) + " s; mean: over the " +
                    "whole buckets until the next step; lowest: the lowest " +
                    std::to_string(o.bucket.count()) + " ms bucket, as ops/s.");
  for (const Run& r : runs) {
    std::string line = flavour_label(r.flavour) + ": a new leader";
    for (const auto& [i, ms] : r.elections) {
      line += ", after " + schedule[i].mark + " in " + (ms ? format_count(*ms) + " ms" : "(none)");
    }
    t.notes.push_back(line + " (srvr polled, so coarse by some tens of ms).");
  }
  out.tables.push_back(std::move(t));

  for (const Run& r : runs) {
    if (!r.ran) continue;
    const std::string name = "fig8-" + flavour_label(r.flavour);
    zk::lab::SvgOptions svg;
    svg.title = "Figure 8: throughput upon failures, " + flavour_label(r.flavour) + ", " +
                std::to_string(o.size) + " servers, " + std::to_string(o.read_percent) + "% reads";
    svg.width = 1280;
    out.plots.emplace_back(name + ".svg", zk::lab::timeline_svg(r.timeline, svg));
    out.plots.emplace_back(name + ".csv", zk::lab::timeline_csv(r.timeline));
  }
  return out;
}

}  // namespace zk::bench
