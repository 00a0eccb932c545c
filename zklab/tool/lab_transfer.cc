// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_transfer.h"

#include <thread>
#include <vector>

namespace zk::lab {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;

// The parent of the load's znodes.
constexpr const char* kLoadRoot = "/zklab-transfer";

}  // namespace

LabExit lab_transfer(const LabContext& ctx, const TransferOptions& o) {
  if (const std::string bad = check_experiment_load(o.load); !bad.empty()) {
    ctx.err << "zklab: transfer needs " << bad << "\n";
    return LabExit::kUsage;
  }
  const auto lab = load_whole_led_lab(ctx);
  if (!lab) return LabExit::kError;
  const std::vector<LabNode>& nodes = lab->nodes;

  const LoadOptions lo = lab_load_options(ctx, nodes, o.load, kLoadRoot);
  Load load(lo);
  if (!connect_load(ctx, load)) return LabExit::kError;
  ctx.out << "transfer: " << describe_load(o.load, nodes.size())
          << (o.to != 0 ? "; node " + std::to_string(o.to) + " asks to lead (rqld), "
                        : std::string("; the leader hands over (ydld), "))
          << seconds_text(o.settle) << " of load before and after\n"
          << std::flush;

  const auto origin = load.start();
  auto watcher = watch_roles(nodes, origin);
  Timeline timeline;
  timeline.bucket = lo.bucket;
  std::this_thread::sleep_for(o.settle);
  const int leader = current_leader(nodes);
  const auto asked = Clock::now();
  timeline.add({since(origin, asked), EventKind::kTransfer, leader, ""});
  if (o.to != 0 && o.to == leader) {
    ctx.err << "zklab: node " << o.to << " leads already\n";
  }
  const int next =
      leader != 0 && o.to != leader ? transfer_leadership(ctx, nodes, leader, o.to) : 0;
  if (leader == 0) ctx.err << "zklab: no node leads\n";
  if (next != 0) {
    ctx.out << seconds_text(since(origin, asked)) << ": leadership moved from node " << leader
            << " to node " << next << " in " << ms_text(since(asked, Clock::now())) << "\n"
            << std::flush;
    std::this_thread::sleep_for(o.settle);
  }
  const auto end = Clock::now();
  watcher->stop();
  load.stop();

  timeline.buckets = load.buckets(end);
  for (auto& e : watcher->events()) timeline.add(std::move(e));
  print_write_outcome(ctx, load, timeline, mark_new_leaders(timeline, since(origin, asked)));
  SvgOptions so;
  so.title = "zklab transfer: " + describe_load(o.load, nodes.size());
  const bool written = write_timeline_files(ctx, timeline, so, "transfer", o.csv, o.svg);
  return next != 0 && written ? LabExit::kOk : LabExit::kError;
}

}  // namespace zk::lab
