// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_experiment.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "libzk/wire/protocol.h"
#include "toolkit/poll_until.h"
#include "zklab/load/timeline_csv.h"
#include "zklab/process/four_letter_word.h"
#include "zklab/tool/lab_status.h"

namespace zk::lab {

namespace {

// Between two rounds of srvr questions by the role watcher.
constexpr auto kRolePoll = std::chrono::milliseconds(50);

std::string format(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::string check_experiment_load(const ExperimentLoad& load) {
  if (load.clients < 1 || load.in_flight < 1) return "at least one client and request in flight";
  if (load.value_bytes < 0) return "a value size of 0 bytes or more";
  if (load.read_ratio < 0 || load.read_ratio > 1) return "--reads between 0 and 1";
  return {};
}

std::string describe_load(const ExperimentLoad& load, size_t nodes) {
  return std::to_string(load.clients) + " sessions over " + std::to_string(nodes) + " nodes, " +
         format("%.0f", load.read_ratio * 100) + "% reads, " + std::to_string(load.in_flight) +
         " in flight, " + std::to_string(load.value_bytes) + "-byte values";
}

LoadOptions lab_load_options(const LabContext& ctx, const std::vector<LabNode>& nodes,
                             const ExperimentLoad& load, std::string root) {
  LoadOptions lo;
  for (const auto& node : nodes) lo.addresses.push_back(node.address());
  lo.sessions = load.clients;
  lo.in_flight = load.in_flight;
  lo.read_ratio = load.read_ratio;
  lo.value_bytes = load.value_bytes;
  lo.root = std::move(root);
  lo.connect_deadline = ctx.deadline;
  lo.security = nodes.front().client;
  return lo;
}

std::unique_ptr<RoleWatcher> watch_roles(const std::vector<LabNode>& nodes,
                                         RoleWatcher::Clock::time_point origin) {
  return std::make_unique<RoleWatcher>(
      [&nodes] {
        RoleWatcher::Roles roles;
        for (const auto& s : lab_status(nodes)) roles[s.id] = s.role();
        return roles;
      },
      origin, kRolePoll);
}

std::optional<LedLab> load_led_lab(const LabContext& ctx) {
  auto nodes = load_lab(ctx);
  if (!nodes) return std::nullopt;
  const int leader = current_leader(*nodes);
  if (leader == 0) {
    ctx.err << "zklab: no node of the lab in " << ctx.dir.string()
            << " is the leader now (see `zklab status`)\n";
    return std::nullopt;
  }
  return LedLab{std::move(*nodes), leader};
}

std::optional<LedLab> load_whole_led_lab(const LabContext& ctx) {
  auto lab = load_led_lab(ctx);
  if (!lab) return std::nullopt;
  std::vector<int> ids;
  for (const LabNode& n : lab->nodes) ids.push_back(n.id);
  if (const std::string why = wait_serving(ctx, lab->nodes, ids, true); !why.empty()) {
    ctx.err << "zklab: the lab does not serve whole: " << why << "\n";
    return std::nullopt;
  }
  return lab;
}

bool connect_load(const LabContext& ctx, Load& load) {
  if (auto error = load.connect(); !error.empty()) {
    ctx.err << "zklab: the load did not start: " << error << "\n";
    return false;
  }
  return true;
}

int current_leader(const std::vector<LabNode>& nodes) {
  for (const auto& s : lab_status(nodes)) {
    if (s.serving() && s.mode == ServerMode::kLeader) return s.id;
  }
  return 0;
}

bool is_leader(std::string_view role) { return role == server_mode_name(ServerMode::kLeader); }

int mark_new_leaders(Timeline& timeline, std::chrono::microseconds from) {
  using std::chrono::microseconds;
  int leaders = 0;
  for (const TimelineEvent* e = timeline.first(EventKind::kRole, from, 0, is_leader); e != nullptr;
       e = timeline.first(EventKind::kRole, e->at + microseconds(1), 0, is_leader)) {
    timeline.add({e->at, EventKind::kNewLeader, e->node, ""});
    ++leaders;
  }
  return leaders;
}

void print_write_outcome(const LabContext& ctx, const Load& load, const Timeline& timeline,
                         int leaders) {
  const WriteGap gap = load.longest_write_gap();
  const auto ended = load.ended();
  ctx.out << "longest gap between successful writes: " << ms_text(gap.length) << " (ended at "
          << seconds_text(gap.ended_at) << ")\n"
          << "sessions lost: " << ended.size() << "\n"
          << "leaders elected: " << leaders << "\n"
          << requests_text(timeline.totals()) << "\n";
  for (const auto& e : ended) ctx.out << "ended: " << e << "\n";
}

int transfer_leadership(const LabContext& ctx, const std::vector<LabNode>& nodes, int leader,
                        int to) {
  const int asked = to != 0 ? to : leader;
  const auto node =
      std::find_if(nodes.begin(), nodes.end(), [asked](const LabNode& n) { return n.id == asked; });
  if (node == nodes.end()) {
    ctx.err << "zklab: no node " << asked << "\n";
    return 0;
  }
  const std::string_view word = to != 0 ? "rqld" : "ydld";
  const std::string_view sent =
      to != 0 ? "Sent leadership request to leader." : "Sent yield leadership request to leader.";
  const auto answer = four_letter_word("127.0.0.1", node->client_port, std::string(word),
                                       std::chrono::seconds(5), node->client.tls_context);
  if (!answer || !answer->starts_with(sent)) {
    ctx.err << "zklab: node " << asked << " did not take the transfer (" << word << "): "
            << (answer ? (answer->empty()
                              ? "no answer (not a zkd that knows " + std::string(word) + "?)"
                              : *answer)
                       : "unreachable")
            << "\n";
    return 0;
  }
  int next = 0;
  const bool moved = toolkit::poll_until(
      [&] {
        next = current_leader(nodes);
        return next != 0 && next != leader && (to == 0 || next == to);
      },
      ctx.deadline, std::chrono::milliseconds(10));
  if (moved) return next;
  ctx.err << "zklab: " << (to != 0 ? "node " + std::to_string(to) : std::string("no other node"))
          << " led within " << ctx.deadline.count() << " ms of " << word << "\n";
  return 0;
}

std::chrono::microseconds since(std::chrono::steady_clock::time_point origin,
                                std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t - origin);
}

std::string QuietContext::last_line() const {
  std::string text = out.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const size_t newline = text.find_last_of('\n');
  return newline == std::string::npos ? text : text.substr(newline + 1);
}

std::string ms_text(std::chrono::microseconds d) {
  return format("%.0f ms", static_cast<double>(d.count()) / 1e3);
}

std::string seconds_text(std::chrono::microseconds d) {
  return format("%.3f s", static_cast<double>(d.count()) / 1e6);
}

std::string seconds_text(std::chrono::milliseconds d) {
  return seconds_text(std::chrono::duration_cast<std::chrono::microseconds>(d));
}

std::string rates_text(const Rates& r) {
  if (r.seconds <= 0) return "n/a (no whole 100 ms bucket)";
  return format("%.0f", r.writes_per_s) + " writes/s, " + format("%.0f", r.reads_per_s) +
         " reads/s (" + format("%.1f", r.seconds) + " s)";
}

std::string requests_text(const LoadBucket& totals) {
  std::string errors;
  for (const auto& [code, count] : totals.errors) {
    errors += (errors.empty() ? "" : ", ") + std::string(zk::wire::error_name(code)) + " " +
              std::to_string(count);
  }
  return "requests: " + std::to_string(totals.writes) + " writes, " + std::to_string(totals.reads) +
         " reads; errors: " + (errors.empty() ? "none" : errors);
}

bool write_timeline_files(const LabContext& ctx, const Timeline& timeline, const SvgOptions& svg,
                          std::string_view name, std::filesystem::path csv_path,
                          std::filesystem::path svg_path) {
  if (csv_path.empty()) csv_path = ctx.dir / (std::string(name) + ".csv");
  if (svg_path.empty()) svg_path = ctx.dir / (std::string(name) + ".svg");
  bool ok = true;
  for (const auto& error :
       {write_timeline_csv(csv_path, timeline), write_timeline_svg(svg_path, timeline, svg)}) {
    if (!error.empty()) {
      ctx.err << "zklab: " << error << "\n";
      ok = false;
    }
  }
  ctx.out << "csv: " << std::filesystem::absolute(csv_path).string() << "\n"
          << "svg: " << std::filesystem::absolute(svg_path).string() << "\n";
  return ok;
}

}  // namespace zk::lab
