// SPDX-License-Identifier: Apache-2.0
// `zkbench keeper-bench --config FILE [-s HOSTS] [--json FILE] ...`: runs a
// workload file of ClickHouse's keeper-bench (keeper_bench_config.h) with
// keeper_bench_runner.h and reports it (keeper_bench_report.h). Options and
// behaviour are those of man/zkbench.1, KEEPER-BENCH.
//
// Flow: read the file (a refused key or value: exit 2, the message names
// it); apply the command line's overrides (-s replaces the connections'
// hosts, one session each; --concurrency, --iterations, --time-limit,
// --report-delay, --continue-on-errors replace those keys); open the
// sessions, remove and create the setup tree, run with a progress line on
// stderr every report_delay seconds; remove the setup tree (unless
// --keep-setup); write the JSON where the file's `output` and --json say,
// and the text report on stdout (on stderr when the JSON goes to stdout).
//
// Exit codes: 0 the run completed (failed requests, with continue_on_error,
// are in the report); 1 no connection, the setup failed, the first error
// ended the run (continue_on_error false), the JSON could not be written or
// the setup tree could not be removed; 2 bad arguments or a refused file.
#pragma once

#include <CLI/CLI.hpp>

#include "zkbench/bench_command.h"

namespace zk::bench {

BenchCommand add_keeper_bench_command(CLI::App& app);

}  // namespace zk::bench
