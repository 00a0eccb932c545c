// SPDX-License-Identifier: Apache-2.0
// The shape of every zkbench subcommand: added to the zkbench app by one
// add_*_command call (measure_commands.h, scenario_commands.h,
// keeper_bench_command.h), which declares the subcommand and its options;
// `run` does the command once the command line parsed into `command` and
// returns zkbench's exit code. The values the options parse into are owned
// by `run`.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace zk::bench {

// zkbench's exit codes (man/zkbench.1).
inline constexpr int kExitOk = 0;     // the run completed; request errors are in its report
inline constexpr int kExitError = 1;  // no connection, the setup failed, ...
inline constexpr int kExitUsage = 2;  // bad arguments, with the subcommand's help on stderr

struct BenchCommand {
  CLI::App* command = nullptr;
  std::function<int()> run;
};

}  // namespace zk::bench
