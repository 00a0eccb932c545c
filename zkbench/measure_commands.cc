// SPDX-License-Identifier: Apache-2.0
#include "zkbench/measure_commands.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "zkbench/cli_options.h"
#include "zkbench/engine.h"
#include "zkbench/plot_svg.h"
#include "zkbench/progress.h"
#include "zkbench/report.h"
#include "zkbench/series_report.h"

namespace zk::bench {
namespace {

std::atomic<Engine*> g_engine{nullptr};
std::atomic<bool> g_interrupted{false};

extern "C" void on_signal(int) {
  g_interrupted.store(true);
  if (Engine* e = g_engine.load()) e->stop();
}

// From now on a signal ends the current run (and the series).
void stop_on_signals() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
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

// Writes the plot `svg` to `path` (--plot), if one was asked for; false,
// after saying why, when it cannot.
bool plotted(const std::string& path, const std::string& svg) {
  if (path.empty()) return true;
  const std::string e = write_plot(path, svg);
  if (!e.empty()) std::cerr << "zkbench: --plot: " << e << "\n";
  return e.empty();
}

int fail(const std::string& what, const RunResult& r) {
  std::cerr << "zkbench: " << what << r.error << "\n";
  return kExitError;
}

// The options every measuring command has, beside its workload's.
struct Output {
  bool json = false;
  bool csv = false;
  std::string plot;
};

}  // namespace

BenchCommand add_run_command(CLI::App& app) {
  struct State {
    std::string servers;
    WorkloadFlags workload;
    Output out;
    std::vector<pid_t> server_pids;
  };
  auto s = std::make_shared<State>();
  auto* r = app.add_subcommand("run", "run one workload and report throughput and latency");
  add_servers_option(*r, s->servers);
  add_workload_options(*r, s->workload, true);
  auto* json_flag = r->add_flag("--json", s->out.json, "print the report as one JSON object");
  r->add_flag("--csv", s->out.csv, "print the report as CSV")->excludes(json_flag);
  add_plot_option(*r, s->out.plot, "the latency CDF of each op type");
  add_pids_option(*r, "--server-pids", s->server_pids, "the servers'");
  return {r, [s, r] {
            EngineOptions o;
            if (std::string e = to_engine_options(s->workload, s->servers, o); !e.empty()) {
              return usage_error(*r, e);
            }
            o.server_pids = s->server_pids;
            stop_on_signals();
            const RunResult result = measure(o);
            if (!result.error.empty()) return fail("", result);
            std::cout << (s->out.json  ? json_report(o, result)
                          : s->out.csv ? csv_report(o, result)
                                       : text_report(o, result));
            std::cout.flush();
            return plotted(s->out.plot, run_plot_svg(o, result)) ? kExitOk : kExitError;
          }};
}

BenchCommand add_sweep_command(CLI::App& app) {
  struct State {
    std::string servers;
    std::vector<int> steps = {0, 20, 40, 60, 80, 90, 100};
    WorkloadFlags workload;
    Output out;
    std::vector<pid_t> server_pids;
  };
  auto s = std::make_shared<State>();
  auto* sw = app.add_subcommand("sweep", "one run per read percentage, a row each");
  add_servers_option(*sw, s->servers);
  sw->add_option("--steps", s->steps, "read percentages (default 0,20,40,60,80,90,100)")
      ->delimiter(',')
      ->check(CLI::Range(0, 100))
      ->type_name("R,R,...");
  add_workload_options(*sw, s->workload, false);
  auto* json_flag = sw->add_flag("--json", s->out.json, "print the table as one JSON object");
  sw->add_flag("--csv", s->out.csv, "print the table as CSV")->excludes(json_flag);
  add_plot_option(*sw, s->out.plot, "ops/s against reads");
  add_pids_option(*sw, "--server-pids", s->server_pids, "the servers'");
  return {sw, [s, sw] {
            EngineOptions o;
            if (std::string e = to_engine_options(s->workload, s->servers, o); !e.empty()) {
              return usage_error(*sw, e);
            }
            o.server_pids = s->server_pids;
            stop_on_signals();
            std::vector<SweepStep> done;
            for (int reads : s->steps) {
              if (interrupted()) break;
              EngineOptions step = o;
              step.workload.mix = reads_mix(reads);
              SweepStep one{reads, measure(step)};
              if (!one.result.error.empty()) {
                return fail(std::to_string(reads) + "% reads: ", one.result);
              }
              done.push_back(std::move(one));
            }
            std::cout << (s->out.json  ? sweep_json(o, done)
                          : s->out.csv ? sweep_csv(done)
                                       : sweep_text(o, done));
            std::cout.flush();
            return plotted(s->out.plot, sweep_plot_svg(o, done)) ? kExitOk : kExitError;
          }};
}

BenchCommand add_compare_command(CLI::App& app) {
  struct State {
    std::string servers_a, servers_b;
    CompareSide a{"a", {}}, b{"b", {}};
    int rounds = 3;
    WorkloadFlags workload;
    Output out;
    std::vector<pid_t> a_pids, b_pids;
  };
  auto s = std::make_shared<State>();
  auto* cmp = app.add_subcommand("compare", "the same workload against two ensembles, A B A B ...");
  cmp->add_option("--a", s->servers_a, "connect string of ensemble A")
      ->required()
      ->type_name("HOSTS");
  cmp->add_option("--b", s->servers_b, "connect string of ensemble B")
      ->required()
      ->type_name("HOSTS");
  cmp->add_option("--a-name", s->a.name, "A's name in the report (default a)");
  cmp->add_option("--b-name", s->b.name, "B's name in the report (default b)");
  cmp->add_option("--rounds", s->rounds, "rounds of A then B (default 3)")
      ->check(CLI::Range(1, 1000));
  add_workload_options(*cmp, s->workload, true);
  cmp->add_flag("--json", s->out.json, "print the report as one JSON object");
  add_plot_option(*cmp, s->out.plot, "each side's ops/s per round");
  add_pids_option(*cmp, "--a-pids", s->a_pids, "A's servers'");
  add_pids_option(*cmp, "--b-pids", s->b_pids, "B's servers'");
  return {
      cmp, [s, cmp] {
        CompareSide& a = s->a;
        CompareSide& b = s->b;
        if (std::string e = to_engine_options(s->workload, s->servers_a, a.options); !e.empty()) {
          return usage_error(*cmp, "--a: " + e);
        }
        if (std::string e = to_engine_options(s->workload, s->servers_b, b.options); !e.empty()) {
          return usage_error(*cmp, "--b: " + e);
        }
        a.options.server_pids = s->a_pids;
        b.options.server_pids = s->b_pids;
        stop_on_signals();
        std::vector<CompareRound> done;
        for (int i = 1; i <= s->rounds && !interrupted(); ++i) {
          CompareRound round;
          round.a = measure(a.options);
          if (!round.a.error.empty()) {
            return fail(a.name + ", round " + std::to_string(i) + ": ", round.a);
          }
          if (interrupted()) break;
          round.b = measure(b.options);
          if (!round.b.error.empty()) {
            return fail(b.name + ", round " + std::to_string(i) + ": ", round.b);
          }
          done.push_back(std::move(round));
        }
        std::cout << (s->out.json ? compare_json(a, b, done) : compare_text(a, b, done));
        std::cout.flush();
        return plotted(s->out.plot, compare_plot_svg(a, b, done)) ? kExitOk : kExitError;
      }};
}

}  // namespace zk::bench
