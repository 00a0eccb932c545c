// SPDX-License-Identifier: Apache-2.0
// zkbench: a workload generator and latency meter for ZooKeeper-compatible
// ensembles. Parses the command line (CLI11; the workload options of run,
// sweep and compare come from cli_options.h) and runs:
//   run      one workload, one report;
//   sweep    one run per read percentage (same znodes; a fresh engine, and so
//            fresh sessions, per step), a row each;
//   compare  the same workload against two ensembles, A then B, for several
//            rounds, with per-round and median ratios A/B.
//   populate, lock, barrier, creates: the scenario workloads
//            (scenario_commands.h), each with its own report and exit code;
//   keeper-bench: a workload file of ClickHouse's keeper-bench
//            (keeper_bench_command.h).
// Every run connects, sets up the znodes (kept from run to run) and runs,
// with a progress line on a terminal; reports go to stdout. Exit codes: 0 ok
// (request errors are reported, not fatal), 1 error (no connection, setup
// failed), 2 bad arguments.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>

#include "libzk/version/version.h"
#include "zkbench/cli_options.h"
#include "zkbench/engine.h"
#include "zkbench/keeper_bench_command.h"
#include "zkbench/plot_svg.h"
#include "zkbench/progress.h"
#include "zkbench/report.h"
#include "zkbench/scenario_commands.h"
#include "zkbench/series_report.h"

namespace {

using namespace zk::bench;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

std::atomic<Engine*> g_engine{nullptr};
std::atomic<bool> g_interrupted{false};

// SIGINT/SIGTERM: end the current run early (its report covers what was
// measured) and start no further run of a sweep or compare.
extern "C" void on_signal(int) {
  g_interrupted.store(true);
  if (Engine* e = g_engine.load()) e->stop();
}

int usage(const CLI::App& app, const std::string& message) {
  std::cerr << "zkbench: " << message << "\n" << app.help();
  return kExitUsage;
}

// One run with `o`: connect, set up, run (with the progress line on a
// terminal). RunResult::error says why it did not happen.
RunResult measure(const EngineOptions& o) {
  Engine engine(o);
  RunResult result;
  if (std::string e = engine.connect(); !e.empty()) {
    result.error = e;
    return result;
  }
  if (std::string e = engine.setup(); !e.empty()) {
    result.error = "setup: " + e;
    return result;
  }
  g_engine.store(&engine);
  if (g_interrupted.load()) engine.stop();
  {
    std::optional<ProgressLine> line;
    if (isatty(STDERR_FILENO) == 1) line.emplace(engine, stderr);
    result = engine.run();
  }
  g_engine.store(nullptr);
  return result;
}

// The runs of a sweep or compare were cut short by a signal.
bool interrupted() {
  if (g_interrupted.load()) std::cerr << "zkbench: interrupted; reporting the runs done\n";
  return g_interrupted.load();
}

// Writes the plot `svg` to `path` (--plot); false, after saying why, when it
// cannot.
bool plotted(const std::string& path, const std::string& svg) {
  const std::string e = write_plot(path, svg);
  if (!e.empty()) std::cerr << "zkbench: --plot: " << e << "\n";
  return e.empty();
}

int fail(const std::string& what, const RunResult& r) {
  std::cerr << "zkbench: " << what << r.error << "\n";
  return kExitError;
}

int run(int argc, char** argv) {
  CLI::App app{"zkbench: workloads and latencies for ZooKeeper-compatible ensembles", "zkbench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", zk::version_line("zkbench"));
  app.footer("\nExit codes: 0 ok (request errors are reported), 1 error, 2 bad arguments.");

  std::string servers;
  bool json = false, csv = false;
  std::string plot;                        // --plot
  std::vector<pid_t> server_pids, b_pids;  // --server-pids / --a-pids, --b-pids

  WorkloadFlags run_flags;
  auto* r = app.add_subcommand("run", "run one workload and report throughput and latency");
  r->add_option("-s,--servers", servers, "connect string: host:port,host:port,...")
      ->required()
      ->type_name("HOSTS");
  add_workload_options(*r, run_flags, true);
  auto* json_flag = r->add_flag("--json", json, "print the report as one JSON object");
  r->add_flag("--csv", csv, "print the report as CSV")->excludes(json_flag);
  add_plot_option(*r, plot, "the latency CDF of each op type");
  add_pids_option(*r, "--server-pids", server_pids, "the servers'");

  WorkloadFlags sweep_flags;
  std::vector<int> steps = {0, 20, 40, 60, 80, 90, 100};
  auto* sw = app.add_subcommand("sweep", "one run per read percentage, a row each");
  sw->add_option("-s,--servers", servers, "connect string: host:port,host:port,...")
      ->required()
      ->type_name("HOSTS");
  sw->add_option("--steps", steps, "read percentages (default 0,20,40,60,80,90,100)")
      ->delimiter(',')
      ->check(CLI::Range(0, 100))
      ->type_name("R,R,...");
  add_workload_options(*sw, sweep_flags, false);
  auto* sweep_json_flag = sw->add_flag("--json", json, "print the table as one JSON object");
  sw->add_flag("--csv", csv, "print the table as CSV")->excludes(sweep_json_flag);
  add_plot_option(*sw, plot, "ops/s against reads");
  add_pids_option(*sw, "--server-pids", server_pids, "the servers'");

  WorkloadFlags compare_flags;
  std::string servers_b;
  CompareSide a{"a", {}}, b{"b", {}};
  int rounds = 3;
  auto* cmp = app.add_subcommand("compare", "the same workload against two ensembles, A B A B ...");
  cmp->add_option("--a", servers, "connect string of ensemble A")->required()->type_name("HOSTS");
  cmp->add_option("--b", servers_b, "connect string of ensemble B")->required()->type_name("HOSTS");
  cmp->add_option("--a-name", a.name, "A's name in the report (default a)");
  cmp->add_option("--b-name", b.name, "B's name in the report (default b)");
  cmp->add_option("--rounds", rounds, "rounds of A then B (default 3)")->check(CLI::Range(1, 1000));
  add_workload_options(*cmp, compare_flags, true);
  cmp->add_flag("--json", json, "print the report as one JSON object");
  add_plot_option(*cmp, plot, "each side's ops/s per round");
  add_pids_option(*cmp, "--a-pids", server_pids, "A's servers'");
  add_pids_option(*cmp, "--b-pids", b_pids, "B's servers'");

  const ScenarioCommand scenarios[] = {add_populate_command(app), add_lock_command(app),
                                       add_barrier_command(app), add_creates_command(app),
                                       add_keeper_bench_command(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    std::cout << zk::version_line("zkbench") << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    return usage(app, e.what());
  }
  for (const ScenarioCommand& s : scenarios) {
    if (s.command->parsed()) return s.run();
  }

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  if (r->parsed()) {
    EngineOptions o;
    if (std::string e = to_engine_options(run_flags, servers, o); !e.empty()) return usage(*r, e);
    o.server_pids = server_pids;
    const RunResult result = measure(o);
    if (!result.error.empty()) return fail("", result);
    std::cout << (json  ? json_report(o, result)
                  : csv ? csv_report(o, result)
                        : text_report(o, result));
    if (!plot.empty() && !plotted(plot, run_plot_svg(o, result))) return kExitError;
  } else if (sw->parsed()) {
    EngineOptions o;
    if (std::string e = to_engine_options(sweep_flags, servers, o); !e.empty()) {
      return usage(*sw, e);
    }
    o.server_pids = server_pids;
    std::vector<SweepStep> done;
    for (int reads : steps) {
      if (interrupted()) break;
      EngineOptions step = o;
      step.workload.mix = reads_mix(reads);
      SweepStep s{reads, measure(step)};
      if (!s.result.error.empty()) return fail(std::to_string(reads) + "% reads: ", s.result);
      done.push_back(std::move(s));
    }
    std::cout << (json ? sweep_json(o, done) : csv ? sweep_csv(done) : sweep_text(o, done));
    if (!plot.empty() && !plotted(plot, sweep_plot_svg(o, done))) return kExitError;
  } else {
    if (std::string e = to_engine_options(compare_flags, servers, a.options); !e.empty()) {
      return usage(*cmp, "--a: " + e);
    }
    if (std::string e = to_engine_options(compare_flags, servers_b, b.options); !e.empty()) {
      return usage(*cmp, "--b: " + e);
    }
    a.options.server_pids = server_pids;
    b.options.server_pids = b_pids;
    std::vector<CompareRound> done;
    for (int i = 1; i <= rounds && !interrupted(); ++i) {
      CompareRound round;
      round.a = measure(a.options);
      if (!round.a.error.empty())
        return fail(a.name + ", round " + std::to_string(i) + ": ", round.a);
      if (interrupted()) break;
      round.b = measure(b.options);
      if (!round.b.error.empty())
        return fail(b.name + ", round " + std::to_string(i) + ": ", round.b);
      done.push_back(std::move(round));
    }
    std::cout << (json ? compare_json(a, b, done) : compare_text(a, b, done));
    if (!plot.empty() && !plotted(plot, compare_plot_svg(a, b, done))) return kExitError;
  }
  std::cout.flush();
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "zkbench: " << e.what() << "\n";
    return kExitError;
  }
}
