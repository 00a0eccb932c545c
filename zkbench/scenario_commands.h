// SPDX-License-Identifier: Apache-2.0
// The command lines of zkbench's scenario workloads: `zkbench populate`,
// `lock`, `barrier` and `creates` (populate.h, lock_contention.h,
// double_barrier.h, create_bench.h), each added to the zkbench app by one
// call. Options and defaults are those of man/zkbench.1. Every command takes
// -s/--servers, --threads, --session-timeout-ms, --connect-timeout and
// --json, and prints its report (scenario_report.h) on stdout.
//
// Exit codes, as run's: 0 the scenario completed; 1 it did not (no
// connection, setup failed: nothing on stdout; or the report lists a
// problem: znodes or rounds missing, mutual exclusion violated, a client
// failed); 2 bad arguments, with the subcommand's help on stderr.
#pragma once

#include <CLI/CLI.hpp>

#include "zkbench/bench_command.h"

namespace zk::bench {

BenchCommand add_populate_command(CLI::App& app);
BenchCommand add_lock_command(CLI::App& app);
BenchCommand add_barrier_command(CLI::App& app);
BenchCommand add_creates_command(CLI::App& app);

}  // namespace zk::bench
