// SPDX-License-Identifier: Apache-2.0
// roll_bench: a rolling restart of a 3-node ensemble under load, zkd and
// Apache ZooKeeper 3.8 side by side: how long the clients go without a
// successful write, and whether any session is lost.
//
// Per flavour and run: one 3-node ensemble (zklab/process/ensemble.h: tickTime
// --tick-ms, initLimit 10, syncLimit 5, forceSync on); a load of --clients
// sessions over all three nodes (zklab/load/load.h: 50% getData, 50% setData of
// 100 bytes, one request in flight each); after --settle seconds, every
// follower in turn by id and then the leader is stopped (SIGTERM, or
// SIGKILL with --kill) and started again, and waited for until it serves,
// with --settle seconds of load after each. Printed per run: the longest
// gap between two successful writes over all sessions (Load's), the
// sessions whose loops ended (expired), and the writes done; then each
// flavour's median gap and the ratio zkd/apache. zklab roll does the same
// to a lab of zkd daemons.
//
// A benchmark, not a test: it prints figures and asserts nothing about them.
// See bench/README.md.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
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

constexpr auto kNodeDeadline = 60s;  // for a node to stop, and to serve again

struct Options {
  std::string flavour = "both";
  int runs = 1;
  std::string zkd = ZKD_BINARY;
  int clients = 8;
  double settle_s = 1.0;
  int tick_ms = 2000;
  bool kill = false;
};

struct RunResult {
  double longest_gap_ms = 0;
  size_t sessions_lost = 0;
  int64_t writes = 0;
  std::string error;
};

// Stops node `id` (SIGTERM or SIGKILL) and starts it again; empty once it
// serves, else why not.
std::string restart(Ensemble& ensemble, int id, bool kill) {
  if (kill) {
    if (!ensemble.kill(id, kNodeDeadline)) return "node " + std::to_string(id) + " did not die";
  } else {
    ensemble.node(id).signal(SIGTERM);
    if (!ensemble.node(id).wait_for_exit(kNodeDeadline)) {
      return "node " + std::to_string(id) + " did not exit";
    }
  }
  return ensemble.restart(id, kNodeDeadline);
}

RunResult run_once(Ensemble& ensemble, const Options& o) {
  RunResult result;
  auto leader = ensemble.leader(30s);
  if (!leader) {
    result.error = "no leader before the roll";
    return result;
  }
  LoadOptions lo;
  for (int id : ensemble.ids()) lo.addresses.push_back(ensemble.address(id));
  lo.sessions = o.clients;
  lo.read_ratio = 0.5;
  lo.value_bytes = 100;
  lo.root = "/roll";
  lo.session_timeout = 30s;
  Load load(lo);
  result.error = load.connect();
  if (!result.error.empty()) return result;
  load.start();
  const auto settle = std::chrono::duration<double>(o.settle_s);
  std::this_thread::sleep_for(settle);  // the load runs; nothing to wait for but time
  std::vector<int> order;
  for (int id : ensemble.ids()) {
    if (id != *leader) order.push_back(id);
  }
  order.push_back(*leader);
  for (int id : order) {
    result.error = restart(ensemble, id, o.kill);
    if (!result.error.empty()) break;
    if (auto all = ensemble.wait_all_serving(kNodeDeadline); !all.empty()) {
      result.error = all;
      break;
    }
    std::this_thread::sleep_for(settle);
  }
  load.stop();
  result.longest_gap_ms =
      std::chrono::duration<double, std::milli>(load.longest_write_gap().length).count();
  result.sessions_lost = load.ended().size();
  result.writes = load.totals().writes;
  return result;
}

// Every run of one flavour; the median longest gap, nothing when none ran.
std::optional<double> bench_flavour(Flavour flavour, const Options& o) {
  const std::string name(zk::lab::flavour_name(flavour));
  std::vector<double> gaps;
  for (int run = 1; run <= o.runs; ++run) {
    EnsembleOptions eo;
    eo.flavour = flavour;
    eo.zkd_binary = o.zkd;
    eo.voters = 3;
    eo.tick_time_ms = o.tick_ms;
    eo.temp_dir_prefix = "roll_bench";
    auto started = Ensemble::start(eo);
    if (!started.ensemble) {
      std::cout << name << ": the ensemble did not start: " << started.error << std::endl;
      return std::nullopt;
    }
    const RunResult r = run_once(*started.ensemble, o);
    std::printf("%-7s %3d %16.0f %14zu %10lld  %s\n", name.c_str(), run, r.longest_gap_ms,
                r.sessions_lost, static_cast<long long>(r.writes), r.error.c_str());
    std::fflush(stdout);
    if (r.error.empty()) gaps.push_back(r.longest_gap_ms);
  }
  return median(gaps);
}

}  // namespace
}  // namespace zk::bench

int main(int argc, char** argv) {
  using namespace zk::bench;
  Options o;
  CLI::App app{"roll_bench: the longest write gap in a rolling restart of a 3-node ensemble"};
  app.add_option("--flavour", o.flavour, "zkd, apache or both")
      ->check(CLI::IsMember({"zkd", "apache", "both"}))
      ->capture_default_str();
  app.add_option("--runs", o.runs, "rolling restarts per flavour, each on a new ensemble")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--zkd", o.zkd, "the zkd binary")->capture_default_str();
  app.add_option("--clients", o.clients, "sessions over the three nodes")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--settle", o.settle_s, "seconds of load before the first restart and after each")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--tick-ms", o.tick_ms, "tickTime of both flavours")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--kill", o.kill, "SIGKILL each node instead of SIGTERM");
  CLI11_PARSE(app, argc, argv);

  std::vector<Flavour> flavours;
  if (o.flavour != "apache") flavours.push_back(Flavour::kZkd);
  if (o.flavour != "zkd") flavours.push_back(Flavour::kApache);
  std::cout << "3 nodes, tickTime " << o.tick_ms << " ms, initLimit 10, syncLimit 5, forceSync on; "
            << o.clients
            << " sessions over all nodes, 50% reads, one request in flight each; the followers, "
               "then the leader, "
            << (o.kill ? "SIGKILLed" : "SIGTERMed") << " and started again." << std::endl;
  std::printf("%-7s %3s %16s %14s %10s\n", "flavour", "run", "longest gap ms", "sessions lost",
              "writes");
  std::optional<double> zkd, apache;
  bool failed = false;
  for (Flavour f : flavours) {
    auto gap = bench_flavour(f, o);
    failed = failed || !gap;
    (f == Flavour::kZkd ? zkd : apache) = gap;
  }
  std::cout << "\nmedian longest gap (ms):";
  if (zkd) std::printf(" zkd %.0f", *zkd);
  if (apache) std::printf(" apache %.0f", *apache);
  if (zkd && apache && *apache > 0) std::printf(", ratio zkd/apache %.2f", *zkd / *apache);
  std::cout << std::endl;
  return failed ? 1 : 0;
}
