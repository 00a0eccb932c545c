// SPDX-License-Identifier: Apache-2.0
// zkbench's measuring commands, each added to the zkbench app by one call
// (bench_command.h); their workload options come from cli_options.h:
//   run      one workload, one report (text, --json or --csv; --plot: the
//            latency CDF of each op type);
//   sweep    one run per read percentage (same znodes; a fresh engine, and
//            so fresh sessions, per step), a row each;
//   compare  the same workload against two ensembles, A then B, for several
//            rounds, with per-round and median ratios A/B.
// Every run connects, sets up the znodes (kept from run to run) and runs,
// with a progress line on a terminal; reports go to stdout. SIGINT and
// SIGTERM end the current run early (its report covers what was measured)
// and start no further run of a sweep or compare. Exit codes: 0 ok (request
// errors are reported, not fatal), 1 error (no connection, setup failed, a
// plot that cannot be written), 2 bad arguments.
#pragma once

#include <CLI/CLI.hpp>

#include "zkbench/bench_command.h"

namespace zk::bench {

BenchCommand add_run_command(CLI::App& app);
BenchCommand add_sweep_command(CLI::App& app);
BenchCommand add_compare_command(CLI::App& app);

}  // namespace zk::bench
