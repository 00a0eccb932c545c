// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_check.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "zklab/checker/check_verdict.h"
#include "zklab/process/server_status.h"
#include "zklab/tool/check_call.h"
#include "zklab/tool/check_nemesis.h"
#include "zklab/tool/check_report.h"
#include "zklab/tool/check_session_limits.h"
#include "zklab/tool/check_workload.h"

namespace zk::lab {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::array kNemeses = {Nemesis::kKill,       Nemesis::kPause,   Nemesis::kPartition,
                                 Nemesis::kBridge,     Nemesis::kCorrupt, Nemesis::kWipe,
                                 Nemesis::kCrashpoint, Nemesis::kSkew,    Nemesis::kReconfig};

std::string nemesis_text(const std::vector<Nemesis>& kinds) {
  std::string out;
  for (auto n : kinds) out += (out.empty() ? "" : ",") + std::string(nemesis_name(n));
  return out.empty() ? "none" : out;
}

// "+1.532 s": `ns` in seconds since `origin_ns`.
std::string since(int64_t ns, int64_t origin_ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.3f s", static_cast<double>(ns - origin_ns) / 1e9);
  return text;
}

uint64_t pick_seed(uint64_t seed) {
  std::random_device random;
  while (seed == 0) seed = (uint64_t{random()} << 32) | random();
  return seed;
}

// What the nodes' tree digests came to (docs/replication.md, "Tree
// digest"): comparisons with the leader's and differences, summed over the
// nodes that answer mntr. Counters start again at a node's restart.
struct DigestFigures {
  int64_t compared = 0;
  int64_t different = 0;
  std::string nodes_that_differ;  // "2,3"
};

DigestFigures digest_figures(const std::vector<LabNode>& nodes) {
  DigestFigures f;
  const auto figure = [](const std::map<std::string, std::string>& m, const char* key) {
    auto it = m.find(key);
    return it == m.end() ? int64_t{0} : std::stoll(it->second);
  };
  for (const LabNode& node : nodes) {
    const auto m =
        mntr("127.0.0.1", node.client_port, std::chrono::seconds(5), node.client.tls_context);
    f.compared += figure(m, "zk_digests_compared");
    if (const int64_t d = figure(m, "zk_digest_mismatches_count"); d > 0) {
      f.different += d;
      f.nodes_that_differ += (f.nodes_that_differ.empty() ? "" : ",") + std::to_string(node.id);
    }
  }
  return f;
}

bool write_history_file(const CheckOptions& options, uint64_t seed, const check::History& history,
                        int64_t origin_ns) {
  std::ofstream out(options.history, std::ios::trunc);
  out << "# zklab check: seed " << seed << ", nemesis " << nemesis_text(options.nemesis)
      << "; times in ns since the start\n";
  check::write_history(out, history, origin_ns);
  out.close();
  return static_cast<bool>(out);
}

}  // namespace

std::string_view nemesis_name(Nemesis nemesis) {
  switch (nemesis) {
    case Nemesis::kKill:
      return "kill";
    case Nemesis::kPause:
      return "pause";
    case Nemesis::kPartition:
      return "partition";
    case Nemesis::kBridge:
      return "bridge";
    case Nemesis::kCorrupt:
      return "corrupt";
    case Nemesis::kWipe:
      return "wipe";
    case Nemesis::kCrashpoint:
      return "crashpoint";
    case Nemesis::kSkew:
      return "skew";
    case Nemesis::kReconfig:
      return "reconfig";
  }
  return "?";
}

std::string nemesis_names() {
  std::string out;
  for (auto n : kNemeses) out += (out.empty() ? "" : ", ") + std::string(nemesis_name(n));
  return out;
}

std::optional<Nemesis> parse_nemesis(std::string_view word) {
  for (auto n : kNemeses) {
    if (nemesis_name(n) == word) return n;
  }
  return std::nullopt;
}

namespace {

// Empty when every fault of `options` applies to the lab of `nodes`; else
// why not. A lab of Apache's peer protocol has no reconfiguration; an Apache
// node's files are not zkd's (corrupt), it has no zkd failpoints
// (crashpoint), and its JVM is not run under libfaketime (skew).
std::string unsupported_nemesis(const std::vector<LabNode>& nodes, const CheckOptions& options) {
  const bool apache_protocol = nodes.front().apache_protocol;
  const bool apache_nodes = std::any_of(
      nodes.begin(), nodes.end(), [](const LabNode& n) { return n.kind == Flavour::kApache; });
  for (const Nemesis n : options.nemesis) {
    if (n == Nemesis::kReconfig && apache_protocol) {
      return "the reconfig nemesis needs reconfiguration, which a lab of Apache's peer protocol "
             "(up --kinds) does not have";
    }
    if ((n == Nemesis::kCorrupt || n == Nemesis::kCrashpoint || n == Nemesis::kSkew) &&
        apache_nodes) {
      return "the " + std::string(nemesis_name(n)) +
             " nemesis works on zkd nodes only, and this lab has Apache nodes";
    }
  }
  return {};
}

}  // namespace

LabExit lab_check(const LabContext& ctx, const CheckOptions& options) {
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  if (const std::string why = unsupported_nemesis(*nodes, options); !why.empty()) {
    ctx.err << "zklab: check: " << why << "\n";
    return LabExit::kUsage;
  }
  auto limits = check::read_session_limits(nodes->front().config());
  if (!limits) {
    ctx.err << "zklab: no tickTime in " << nodes->front().config().string() << "\n";
    return LabExit::kError;
  }
  const uint64_t seed = pick_seed(options.seed);
  const auto wall = std::chrono::duration_cast<std::chrono::seconds>(
      std::chrono::system_clock::now().time_since_epoch());
  const std::string root =
      "/zklab-check-" + std::to_string(seed) + "-" + std::to_string(wall.count());
  ctx.out << "zklab check: seed " << seed << ", " << options.clients << " clients, "
          << options.registers << " registers, " << options.duration.count() / 1000.0
          << " s, nemesis " << nemesis_text(options.nemesis) << ", root " << root << "\n"
          << std::flush;
  if (auto error = wait_serving(ctx, *nodes, node_ids(*nodes), true); !error.empty()) {
    ctx.err << "zklab: the lab does not serve: " << error << "\n";
    return LabExit::kError;
  }

  check::WorkloadSettings settings;
  settings.clients = options.clients;
  settings.registers = options.registers;
  settings.seed = seed;
  settings.limits = *limits;
  settings.deadline = ctx.deadline;
  if (options.jute_maxbuffer > 0) settings.max_reply_bytes = options.jute_maxbuffer;
  check::CheckWorkload workload(*nodes, settings);
  if (auto error = workload.setup(root); !error.empty()) {
    ctx.err << "zklab: " << error << "\n";
    workload.cleanup();
    return LabExit::kError;
  }
  check::CheckNemesis nemesis(ctx, *nodes, options.nemesis, seed);
  const int64_t origin_ns = check::steady_now_ns();
  const auto until = Clock::now() + options.duration;
  workload.start(options.duration);
  nemesis.run(until);
  std::this_thread::sleep_until(until);
  workload.stop();
  std::string error = nemesis.heal();
  const int64_t healed_ns = check::steady_now_ns();
  check::History history;
  if (error.empty()) error = workload.finish(healed_ns, history);

  ctx.out << "nemesis:" << (nemesis.log().empty() ? " nothing done" : "") << "\n";
  for (const auto& e : nemesis.log())
    ctx.out << "  " << since(e.at_ns, origin_ns) << "  " << e.what << "\n";
  ctx.out << "faults injected: " << nemesis.faults();
  std::string by_kind;
  for (const auto& [kind, count] : nemesis.counts()) {
    by_kind += (by_kind.empty() ? "" : ", ") + std::string(nemesis_name(kind)) + " " +
               std::to_string(count);
  }
  if (!by_kind.empty()) ctx.out << " (" << by_kind << ")";
  ctx.out << "\n";
  for (const auto& [outcome, count] : nemesis.outcomes()) {
    ctx.out << "  " << outcome << ": " << count << "\n";
  }
  const auto f = workload.figures();
  ctx.out << "sessions: " << f.sessions_opened << " opened, " << f.sessions_expired << " expired, "
          << f.sessions_abandoned << " abandoned (" << f.abandoned_on_purpose
          << " on purpose); timeout " << f.session_timeout.count() << " ms; waited "
          << f.expiry_wait.count() << " ms for abandoned sessions to expire\n";
  if (f.ephemerals_dropped > 0) {
    ctx.out << "ephemerals not checked (their session's fate at the end is unknown): "
            << f.ephemerals_dropped << "\n";
  }
  print_counts(ctx.out, history);
  const DigestFigures digests = digest_figures(*nodes);
  ctx.out << "tree digests: " << digests.compared << " compared with the leader's, "
          << digests.different << " different\n";
  LabExit code = LabExit::kOk;
  if (digests.different > 0) {
    ctx.out << "TREES DIVERGED: node(s) " << digests.nodes_that_differ
            << " found their tree digest different from the leader's (see their logs)\n";
    code = LabExit::kError;
  }
  if (!error.empty()) {
    ctx.out << "verdict: COULD NOT RUN: " << error << "\n";
    code = LabExit::kError;
  } else {
    const auto verdict = check::check_history(history);
    ctx.out << check::verdict_line(verdict) << "\n";
    check::print_violations(ctx.out, verdict, origin_ns);
    if (!verdict.ok()) code = LabExit::kError;
  }
  if (!nemesis.errors().empty()) {
    ctx.err << "zklab: " << nemesis.errors().size()
            << " nemesis action(s) failed (see FAILED above): the run is not what was asked\n";
    code = LabExit::kError;
  }
  if (!options.history.empty()) {
    if (write_history_file(options, seed, history, origin_ns)) {
      ctx.out << "history: " << options.history.string() << "\n";
    } else {
      ctx.err << "zklab: cannot write " << options.history.string() << "\n";
      code = LabExit::kError;
    }
  }
  ctx.out << std::flush;
  workload.cleanup();
  return code;
}

}  // namespace zk::lab
