// SPDX-License-Identifier: Apache-2.0
// zkbench: a workload generator and latency meter for ZooKeeper-compatible
// ensembles. Adds every subcommand (bench_command.h), parses the command
// line (CLI11) and runs the chosen one:
//   run, sweep, compare: the measuring commands (measure_commands.h);
//   populate, lock, barrier, creates: the scenario workloads
//            (scenario_commands.h), each with its own report;
//   keeper-bench: a workload file of ClickHouse's keeper-bench
//            (keeper_bench_command.h);
//   flood: a measuring session's latencies unloaded and under a flood of
//            misbehaving clients (flood_command.h);
//   paper: the ZooKeeper paper's evaluation on zkd and Apache ensembles it
//            starts (paper_command.h).
// Exit codes: 0 ok (request errors are reported, not fatal), 1 error (no
// connection, setup failed), 2 bad arguments.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <vector>

#include "libzk/version/version.h"
#include "zkbench/bench_command.h"
#include "zkbench/flood_command.h"
#include "zkbench/keeper_bench_command.h"
#include "zkbench/measure_commands.h"
#include "zkbench/paper_command.h"
#include "zkbench/scenario_commands.h"

namespace {

using namespace zk::bench;

int run(int argc, char** argv) {
  CLI::App app{"zkbench: workloads and latencies for ZooKeeper-compatible ensembles", "zkbench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", zk::version_line("zkbench"));
  app.footer("\nExit codes: 0 ok (request errors are reported), 1 error, 2 bad arguments.");
  const BenchCommand commands[] = {add_run_command(app),     add_sweep_command(app),
                                   add_compare_command(app), add_populate_command(app),
                                   add_lock_command(app),    add_barrier_command(app),
                                   add_creates_command(app), add_keeper_bench_command(app),
                                   add_flood_command(app),   add_paper_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    std::cout << zk::version_line("zkbench") << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::cerr << "zkbench: " << e.what() << "\n" << app.help();
    return kExitUsage;
  }
  for (const BenchCommand& c : commands) {
    if (c.command->parsed()) return c.run();
  }
  return kExitUsage;  // unreachable: one subcommand is required
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
