// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_migrate.h"

#include <unistd.h>

#include <algorithm>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "zklab/tool/lab_status.h"

namespace zk::lab {

namespace {

using Clock = std::chrono::steady_clock;

// The parent of the load's znodes.
constexpr const char* kLoadRoot = "/zklab-migrate";

LabNode& node_of(std::vector<LabNode>& nodes, int id) { return nodes[static_cast<size_t>(id - 1)]; }

// "node 3 (zkd)", or "no leader".
std::string leader_text(const std::vector<LabNode>& nodes, int leader) {
  if (leader == 0) return "no leader";
  return "node " + std::to_string(leader) + " (" +
         std::string(flavour_name(nodes[static_cast<size_t>(leader - 1)].kind)) + ")";
}

// "1:apache 2:zkd 3:zkd".
std::string kinds_text(const std::vector<LabNode>& nodes) {
  std::string out;
  for (const LabNode& n : nodes) {
    out +=
        (out.empty() ? "" : " ") + std::to_string(n.id) + ":" + std::string(flavour_name(n.kind));
  }
  return out;
}

// The node leading now, once one does (waited for up to ctx.deadline); 0 if none.
int wait_leader(const LabContext& ctx, const std::vector<LabNode>& nodes) {
  int leader = 0;
  const auto until = Clock::now() + ctx.deadline;
  while ((leader = current_leader(nodes)) == 0 && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));  // a poll, bounded by the deadline
  }
  return leader;
}

// What to check before a run: empty, or why it cannot be made.
std::string cannot_migrate(const LabContext& ctx, const std::vector<LabNode>& nodes, Flavour to) {
  if (!nodes.front().apache_protocol) {
    return "the lab in " + ctx.dir.string() +
           " speaks zkd's own peer protocol, which Apache's servers do not; migrate needs a lab "
           "written by `zklab up --kinds ...` (Apache's peer protocol)";
  }
  if (to == Flavour::kApache) return apache_missing();
  if (::access(ctx.zkd.c_str(), X_OK) != 0) {
    return "no zkd executable at '" + ctx.zkd + "' (use --zkd or $ZKLAB_ZKD)";
  }
  return {};
}

}  // namespace

std::string wipe_node_data(const LabNode& node) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(node.data_dir(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "myid" || name == "session.key") continue;
    std::filesystem::remove_all(entry.path(), ec);
    if (ec) return "cannot remove " + entry.path().string() + ": " + ec.message();
  }
  if (ec) return "cannot read " + node.data_dir().string() + ": " + ec.message();
  std::filesystem::create_directories(node.version2_dir(), ec);
  if (ec) return "cannot create " + node.version2_dir().string() + ": " + ec.message();
  return {};
}

LabExit lab_migrate(const LabContext& ctx, const MigrateOptions& o) {
  if (const std::string bad = check_experiment_load(o.load); !bad.empty()) {
    ctx.err << "zklab: migrate needs " << bad << "\n";
    return LabExit::kUsage;
  }
  auto lab = load_whole_led_lab(ctx);
  if (!lab) return LabExit::kError;
  std::vector<LabNode>& nodes = lab->nodes;
  if (const std::string why = cannot_migrate(ctx, nodes, o.to); !why.empty()) {
    ctx.err << "zklab: " << why << "\n";
    return LabExit::kError;
  }
  const std::string to(flavour_name(o.to));
  std::vector<int> todo;
  for (const LabNode& n : nodes) {
    if (n.kind != o.to) todo.push_back(n.id);
  }
  if (todo.empty()) {
    ctx.out << "migrate: every node runs " << to << " already (" << kinds_text(nodes) << ")\n";
    return LabExit::kOk;
  }

  const LoadOptions lo = lab_load_options(ctx, nodes, o.load, kLoadRoot);
  Load load(lo);
  if (!connect_load(ctx, load)) return LabExit::kError;
  ctx.out << "migrate: " << describe_load(o.load, nodes.size()) << "; " << todo.size()
          << " node(s) to " << to << " one at a time, the leader last (stopped, data wiped but "
          << "myid, started as " << to << ")"
          << (o.kill_leader_between ? ", the leader killed and restarted between steps" : "")
          << ", " << seconds_text(o.settle) << " of load before, between and after\n"
          << "kinds before: " << kinds_text(nodes) << "; leader " << leader_text(nodes, lab->leader)
          << "\n"
          << std::flush;

  const auto origin = load.start();
  auto watcher = watch_roles(nodes, origin);
  Timeline timeline;
  timeline.bucket = lo.bucket;
  QuietContext quiet(ctx);
  bool failed = false;
  int steps = 0;
  WriteGap worst;
  std::string worst_step;

  // One step's report: what happened, the leader after it, the step's gap.
  const auto report = [&](const std::string& what, Clock::time_point began) {
    const int leader = wait_leader(ctx, nodes);
    const WriteGap gap = load.take_write_gap();
    ctx.out << seconds_text(since(origin, began)) << ": " << what << "; leader "
            << leader_text(nodes, leader) << "; longest write gap " << ms_text(gap.length) << "\n"
            << std::flush;
    ++steps;
    if (gap.length > worst.length) {
      worst = gap;
      worst_step = "step " + std::to_string(steps);
    }
  };
  // Starts node `id` and waits until it serves: the time it took, or nothing
  // (its error on ctx.err).
  const auto start = [&](int id, Clock::time_point since_when) -> std::optional<Clock::duration> {
    if (lab_node(quiet.ctx, NodeAction::kStart, std::to_string(id), true) != LabExit::kOk) {
      ctx.err << std::exchange(quiet.err, std::ostringstream()).str();
      return std::nullopt;
    }
    const auto served = Clock::now();
    timeline.add({since(origin, served), EventKind::kRejoin, id, ""});
    return served - since_when;
  };

  std::this_thread::sleep_for(o.settle);
  (void)load.take_write_gap();  // the steps' gaps start here
  const std::chrono::microseconds first_stop = since(origin, Clock::now());
  while (!todo.empty() && !failed) {
    // Followers (and observers) by id; the leader of the moment last.
    const int leader = current_leader(nodes);
    auto next = std::find_if(todo.begin(), todo.end(), [leader](int id) { return id != leader; });
    if (next == todo.end()) next = todo.begin();
    const int id = *next;
    todo.erase(next);
    LabNode& node = node_of(nodes, id);
    const Flavour from = node.kind;

    const auto began = Clock::now();
    timeline.add({since(origin, began), EventKind::kRestart, id, ""});
    if (lab_node(quiet.ctx, NodeAction::kStop, std::to_string(id), false) != LabExit::kOk) {
      ctx.err << quiet.err.str();
      failed = true;
      break;
    }
    if (std::string error = wipe_node_data(node); !error.empty()) {
      ctx.err << "zklab: node " << id << ": " << error << "\n";
      failed = true;
      break;
    }
    if (!write_kind(node, o.to)) {
      ctx.err << "zklab: cannot write " << node.kind_file().string() << "\n";
      failed = true;
      break;
    }
    node.kind = o.to;
    const auto took = start(id, began);
    if (!took) {
      failed = true;
      break;
    }
    std::this_thread::sleep_for(o.settle);
    report("node " + std::to_string(id) + (id == leader ? " (leader)" : "") + " " +
               std::string(flavour_name(from)) + " -> " + to + ", serving again after " +
               ms_text(std::chrono::duration_cast<std::chrono::microseconds>(*took)),
           began);

    if (o.kill_leader_between && !todo.empty()) {
      const int victim = wait_leader(ctx, nodes);
      if (victim == 0) {
        ctx.err << "zklab: no leader to kill between steps\n";
        failed = true;
        break;
      }
      const auto killed_at = Clock::now();
      timeline.add({since(origin, killed_at), EventKind::kKill, victim, ""});
      if (lab_node(quiet.ctx, NodeAction::kKill, std::to_string(victim), false) != LabExit::kOk) {
        ctx.err << quiet.err.str();
        failed = true;
        break;
      }
      const auto back = start(victim, killed_at);
      if (!back) {
        failed = true;
        break;
      }
      std::this_thread::sleep_for(o.settle);
      report("killed leader " + leader_text(nodes, victim) +
                 " and started it again, serving after " +
                 ms_text(std::chrono::duration_cast<std::chrono::microseconds>(*back)),
             killed_at);
    }
  }
  const auto end = Clock::now();
  watcher->stop();
  load.stop();

  timeline.buckets = load.buckets(end);
  for (auto& e : watcher->events()) timeline.add(std::move(e));
  const int final_leader = current_leader(nodes);
  print_write_outcome(ctx, load, timeline, mark_new_leaders(timeline, first_stop));
  ctx.out << (failed ? "migrate FAILED" : "migrated") << ": kinds now " << kinds_text(nodes)
          << "; leader " << leader_text(nodes, final_leader) << "; " << steps << " step(s) in "
          << seconds_text(since(origin, end)) << "; longest write gap " << ms_text(worst.length)
          << (worst_step.empty() ? "" : " (" + worst_step + ")") << "\n";

  SvgOptions so;
  so.title = "zklab migrate --to " + to + ": " + describe_load(o.load, nodes.size());
  failed = !write_timeline_files(ctx, timeline, so, "migrate", o.csv, o.svg) || failed;
  return failed ? LabExit::kError : LabExit::kOk;
}

}  // namespace zk::lab
