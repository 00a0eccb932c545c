// SPDX-License-Identifier: Apache-2.0
// failover_bench: how long a 3-node ensemble cannot take writes when its
// leader is SIGKILLed (or, with --fault pause, SIGSTOPped: a hung host, a long
// GC pause) under load, for zkd and Apache ZooKeeper 3.8 under the same load,
// side by side.
//
// Per flavour: one 3-node ensemble (zklab/process/ensemble.h: tickTime --tick-ms,
// initLimit 10, syncLimit 5, forceSync on), then --runs times:
//   1. the current leader L is found with srvr; --clients async sessions are
//      opened on the two followers only (zklab/load/load.h: session i starts on
//      follower i % 2 and fails over to the other), each with one setData
//      of 100 bytes on its own znode in flight, in a loop;
//   2. after --warmup seconds of writing, L is SIGKILLed or SIGSTOPped (t0:
//      just before);
//   3. measured from t0: "new leader", the first srvr round that shows a
//      unique leader other than L (srvr is polled every ~25 ms, so this
//      figure is coarse by that much); "first write", the completion of the
//      first successful setData sent by any client once L's process is
//      gone (one sent while it was dying may still commit there): the
//      unavailability window; "all clients", when every client has had one;
//   4. the load stops, L is started again (or SIGCONTed) and rejoins; the next
//      run strikes the then-current leader.
// Printed: every run, the median of each figure per flavour, and the ratio
// zkd/apache of the medians.
//
// A benchmark, not a test: it prints figures and asserts nothing about them.
// See bench/README.md.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "toolkit/poll_until.h"
#include "zkbench/series_report.h"
#include "zklab/load/load.h"
#include "zklab/process/ensemble.h"

#ifndef ZKD_BINARY
#error "ZKD_BINARY must name the default zkd executable"
#endif

namespace zk::bench {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using zk::lab::Ensemble;
using zk::lab::EnsembleOptions;
using zk::lab::Flavour;
using zk::lab::Load;
using zk::lab::LoadOptions;
using zk::lab::LoadRecovery;
using zk::wire::Error;

constexpr auto kRunDeadline = 60s;  // from the kill, for every figure of a run
constexpr auto kSessionTimeout = 30s;
constexpr auto kConnectDeadline = 20s;

std::string error_text(Error e) { return std::string(zk::wire::error_name(e)); }

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

struct Options {
  std::string flavour = "both";
  int runs = 5;
  std::string zkd = ZKD_BINARY;
  int clients = 8;
  double warmup_s = 1.0;
  int tick_ms = 200;
  bool pause = false;  // --fault pause: SIGSTOP the leader instead of SIGKILL
  bool keep_dir = false;
};

struct RunResult {
  int killed = 0;  // id of the killed leader
  std::optional<double> new_leader_ms;
  std::optional<double> first_write_ms;
  std::optional<double> all_clients_ms;
  double writes_per_s_before = 0;  // during the warm-up, all clients
  std::string error;
};

// Waits until a node other than the paused `paused` says it leads (a paused
// node is not asked: srvr to it would wait for its deadline); false at
// `until`.
bool others_elect(const Ensemble& ensemble, int paused, Clock::time_point until) {
  return zk::toolkit::poll_until(
      [&] {
        for (int id : ensemble.ids()) {
          if (id != paused && ensemble.mode(id, 500ms) == zk::lab::ServerMode::kLeader) return true;
        }
        return false;
      },
      until, 10ms);
}

RunResult run_once(Ensemble& ensemble, const Options& o) {
  RunResult result;
  auto leader = ensemble.leader(30s);
  if (!leader) {
    result.error = "no leader before the kill";
    return result;
  }
  result.killed = *leader;

  LoadOptions lo;
  for (int id : ensemble.ids()) {
    if (id != *leader) lo.addresses.push_back(ensemble.address(id));
  }
  lo.sessions = o.clients;
  lo.in_flight = 1;
  lo.read_ratio = 0;
  lo.value_bytes = 100;
  lo.root = "/failover";
  lo.session_timeout = kSessionTimeout;
  lo.connect_deadline = kConnectDeadline;
  lo.reconnect_backoff = 20ms;
  Load load(lo);
  result.error = load.connect();
  if (!result.error.empty()) return result;
  const auto warm_from = load.start();
  // Warm-up: the load runs; nothing to wait for but time.
  std::this_thread::sleep_for(std::chrono::duration<double>(o.warmup_s));
  result.writes_per_s_before = static_cast<double>(load.totals().writes) /
                               std::chrono::duration<double>(Clock::now() - warm_from).count();

  const auto t0 = Clock::now();
  if (o.pause ? !ensemble.node(*leader).signal(SIGSTOP) : !ensemble.kill(*leader)) {
    result.error = o.pause ? "the leader could not be paused" : "the leader did not die";
    return result;
  }
  // Only writes sent once the old leader is struck count: one sent while it
  // was dying may still have been committed by it.
  load.mark(Clock::now());
  if (o.pause ? others_elect(ensemble, *leader, t0 + kRunDeadline)
              : ensemble.wait_for_leader(kRunDeadline, {*leader}).has_value()) {
    result.new_leader_ms = ms_between(t0, Clock::now());
  }
  load.wait_all_recovered(t0 + kRunDeadline);
  load.stop();
  const LoadRecovery recovery = load.recovery();
  if (recovery.first) result.first_write_ms = ms_between(t0, *recovery.first);
  if (recovery.all) result.all_clients_ms = ms_between(t0, *recovery.all);
  // Connection loss is expected while the leader is gone; anything else is reported.
  std::vector<std::string> problems = load.ended();
  for (const auto& [code, count] : load.totals().errors) {
    if (code == Error::kConnectionLoss) continue;
    problems.push_back(std::to_string(count) + " x " + error_text(code));
  }
  for (const auto& p : problems) result.error += (result.error.empty() ? "" : "; ") + p;

  std::string back;
  if (o.pause) {
    if (!ensemble.node(*leader).signal(SIGCONT)) back = "SIGCONT failed";
  } else {
    back = ensemble.restart(*leader, kRunDeadline);
  }
  if (back.empty()) back = ensemble.wait_all_serving(kRunDeadline);
  if (!back.empty()) {
    result.error += (result.error.empty() ? "" : "; ") + ("restart: " + back);
  }
  return result;
}

std::string figure(const std::optional<double>& ms) {
  if (!ms) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", *ms);
  return buf;
}

struct Summary {
  std::optional<double> new_leader_ms;
  std::optional<double> first_write_ms;
  std::optional<double> all_clients_ms;
};

// All runs for one flavour; nothing when its ensemble did not start.
std::optional<Summary> bench_flavour(Flavour flavour, const Options& o) {
  EnsembleOptions eo;
  eo.flavour = flavour;
  eo.zkd_binary = o.zkd;
  eo.voters = 3;
  eo.tick_time_ms = o.tick_ms;
  eo.temp_dir_prefix = "failover_bench";
  auto started = Ensemble::start(eo);
  const std::string name(zk::lab::flavour_name(flavour));
  if (!started.ensemble) {
    std::cout << name << ": the ensemble did not start: " << started.error << std::endl;
    return std::nullopt;
  }
  Ensemble& ensemble = *started.ensemble;
  if (o.keep_dir) {
    ensemble.keep_directory();
    std::cout << name << ": directory " << ensemble.directory().string() << std::endl;
  }
  std::vector<double> leader_ms, first_ms, all_ms;
  for (int run = 1; run <= o.runs; ++run) {
    RunResult r = run_once(ensemble, o);
    std::printf("%-7s %3d %7d %13s %12s %12s %16.0f  %s\n", name.c_str(), run, r.killed,
                figure(r.new_leader_ms).c_str(), figure(r.first_write_ms).c_str(),
                figure(r.all_clients_ms).c_str(), r.writes_per_s_before, r.error.c_str());
    std::fflush(stdout);
    if (r.new_leader_ms) leader_ms.push_back(*r.new_leader_ms);
    if (r.first_write_ms) first_ms.push_back(*r.first_write_ms);
    if (r.all_clients_ms) all_ms.push_back(*r.all_clients_ms);
    if (r.killed == 0) break;  // no leader to kill: later runs would not fare better
  }
  return Summary{median(leader_ms), median(first_ms), median(all_ms)};
}

std::string ratio(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b || *b <= 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", *a / *b);
  return buf;
}

}  // namespace
}  // namespace zk::bench

int main(int argc, char** argv) {
  using namespace zk::bench;
  Options o;
  CLI::App app{
      "failover_bench: write unavailability after SIGKILL (or SIGSTOP) of a 3-node ensemble's "
      "leader"};
  std::string fault = "kill";
  app.add_option("--fault", fault, "kill (SIGKILL, then restart) or pause (SIGSTOP, then SIGCONT)")
      ->check(CLI::IsMember({"kill", "pause"}))
      ->capture_default_str();
  app.add_option("--flavour", o.flavour, "zkd, apache or both")
      ->check(CLI::IsMember({"zkd", "apache", "both"}))
      ->capture_default_str();
  app.add_option("--runs", o.runs, "leader kills per flavour")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--zkd", o.zkd, "the zkd binary")->capture_default_str();
  app.add_option("--clients", o.clients, "writing sessions, one setData in flight each")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--warmup", o.warmup_s, "seconds of load before each kill")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--tick-ms", o.tick_ms, "tickTime of both flavours")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--keep-dir", o.keep_dir, "keep the ensembles' directories");
  CLI11_PARSE(app, argc, argv);
  o.pause = fault == "pause";

  std::vector<Flavour> flavours;
  if (o.flavour != "apache") flavours.push_back(Flavour::kZkd);
  if (o.flavour != "zkd") flavours.push_back(Flavour::kApache);
  std::cout << "3 nodes, tickTime " << o.tick_ms << " ms, initLimit 10, syncLimit 5, forceSync on; "
            << o.clients << " clients on the followers, one 100-byte setData in flight each; "
            << o.runs << " leader " << (o.pause ? "pauses" : "kills")
            << " per flavour. Times in ms from the " << (o.pause ? "SIGSTOP." : "SIGKILL.")
            << std::endl;
  std::printf("%-7s %3s %7s %13s %12s %12s %16s\n", "flavour", "run", "killed", "new leader",
              "first write", "all clients", "writes/s before");
  std::map<Flavour, Summary> summaries;
  bool failed = false;
  for (Flavour f : flavours) {
    auto s = zk::bench::bench_flavour(f, o);
    if (s) {
      summaries[f] = *s;
    } else {
      failed = true;
    }
  }
  std::cout << "\nmedians (ms):" << std::endl;
  for (const auto& [f, s] : summaries) {
    std::printf("%-7s new leader %s, first write %s, all clients %s\n",
                std::string(zk::lab::flavour_name(f)).c_str(), figure(s.new_leader_ms).c_str(),
                figure(s.first_write_ms).c_str(), figure(s.all_clients_ms).c_str());
  }
  if (summaries.count(Flavour::kZkd) != 0 && summaries.count(Flavour::kApache) != 0) {
    const Summary& z = summaries[Flavour::kZkd];
    const Summary& a = summaries[Flavour::kApache];
    std::printf("ratio zkd/apache: new leader %s, first write %s, all clients %s\n",
                ratio(z.new_leader_ms, a.new_leader_ms).c_str(),
                ratio(z.first_write_ms, a.first_write_ms).c_str(),
                ratio(z.all_clients_ms, a.all_clients_ms).c_str());
  }
  return failed ? 1 : 0;
}
