// SPDX-License-Identifier: Apache-2.0
// What the lab's experiments under load (`zklab failover`, `zklab roll`)
// share: the load over every node of a lab, a role watcher on the lab, the
// quiet context their node commands print into, and the pieces of their
// reports (times, rates, errors, the timeline's CSV and SVG files).
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "zklab/load/load.h"
#include "zklab/load/role_watcher.h"
#include "zklab/load/timeline.h"
#include "zklab/load/timeline_svg.h"
#include "zklab/tool/lab_commands.h"
#include "zklab/tool/lab_state.h"

namespace zk::lab {

// The load's shape, as the experiments' options give it.
struct ExperimentLoad {
  int clients = 8;          // sessions, spread evenly over the nodes
  double read_ratio = 0.5;  // share of reads (getData) among requests
  int in_flight = 1;        // requests in flight per session
  int value_bytes = 100;    // size of every setData
};

// Empty when `load` can be run; else what is wrong with it.
std::string check_experiment_load(const ExperimentLoad& load);

// "8 sessions over 3 nodes, 50% reads, 1 in flight, 100-byte values".
std::string describe_load(const ExperimentLoad& load, size_t nodes);

// The load's options for a lab: every node's address, the lab's client
// security, znodes under `root`.
LoadOptions lab_load_options(const LabContext& ctx, const std::vector<LabNode>& nodes,
                             const ExperimentLoad& load, std::string root);

// A RoleWatcher that reads every node's role with srvr about every 50 ms.
std::unique_ptr<RoleWatcher> watch_roles(const std::vector<LabNode>& nodes,
                                         RoleWatcher::Clock::time_point origin);

// The lab in ctx.dir and the node leading it now; nothing, with why on
// ctx.err, when there is no lab or no node leads.
struct LedLab {
  std::vector<LabNode> nodes;
  int leader = 0;
};
std::optional<LedLab> load_led_lab(const LabContext& ctx);
// load_led_lab, once every node serves (waited for, ctx.deadline); nothing,
// with why on ctx.err, when one does not.
std::optional<LedLab> load_whole_led_lab(const LabContext& ctx);

// Connects `load` (Load::connect); false, with why on ctx.err, when it cannot.
bool connect_load(const LabContext& ctx, Load& load);

// The id of the node that serves as leader now; 0 when none does.
int current_leader(const std::vector<LabNode>& nodes);

// Asks node `leader` to hand its leadership to its most up-to-date follower
// (zkd's ydld four-letter word), or, with `to`, asks node `to` to take it
// (ClickHouse Keeper's rqld), and waits (ctx.deadline) until another node
// (`to`, when given) serves as leader: its id, or 0 with why on ctx.err (not
// zkd, not the leader, or no new leader in time).
int transfer_leadership(const LabContext& ctx, const std::vector<LabNode>& nodes, int leader,
                        int to = 0);
bool is_leader(std::string_view role);

// A context whose node commands print into the given streams, for an
// experiment that reports their lines with a time of its own.
struct QuietContext {
  explicit QuietContext(const LabContext& outer)
      : ctx{outer.dir, outer.zkd, outer.deadline, out, err, outer.zkd_environment} {}
  QuietContext(const QuietContext&) = delete;
  QuietContext& operator=(const QuietContext&) = delete;
  // The last line printed, without its newline.
  std::string last_line() const;
  std::ostringstream out, err;
  LabContext ctx;
};

// The time from `origin` to `t`, as the timelines count it.
std::chrono::microseconds since(std::chrono::steady_clock::time_point origin,
                                std::chrono::steady_clock::time_point t);

// "412 ms", "1.234 s", from microseconds.
std::string ms_text(std::chrono::microseconds d);
std::string seconds_text(std::chrono::microseconds d);
std::string seconds_text(std::chrono::milliseconds d);
// "5908 writes/s, 5904 reads/s (2.0 s)", or why there is no rate.
std::string rates_text(const Rates& rates);
// "requests: 23841 writes, 23769 reads; errors: CONNECTIONLOSS 282".
std::string requests_text(const LoadBucket& totals);

// Adds a kNewLeader event at every leader the watcher saw from `from` on;
// how many.
int mark_new_leaders(Timeline& timeline, std::chrono::microseconds from);

// What the load's clients saw, one line each: the longest gap between
// successful writes, the sessions lost (and which), the leaders elected
// (`leaders`), the request totals.
void print_write_outcome(const LabContext& ctx, const Load& load, const Timeline& timeline,
                         int leaders);

// Writes the timeline's CSV and SVG (`csv`, `svg`; empty: <lab>/<name>.csv
// and .svg), printing their paths; false (and why on ctx.err) when one could
// not be written.
bool write_timeline_files(const LabContext& ctx, const Timeline& timeline, const SvgOptions& svg,
                          std::string_view name, std::filesystem::path csv_path,
                          std::filesystem::path svg_path);

}  // namespace zk::lab
