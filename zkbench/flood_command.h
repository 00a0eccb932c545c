// SPDX-License-Identifier: Apache-2.0
// `zkbench flood` (man/zkbench.1, FLOOD): how much a well-behaved session
// suffers while misbehaving clients offer the servers many times what they
// can take. In order: the measuring session (flood_measure.h) connects and
// creates its znodes and the flood's; the capacity is measured
// (flood_capacity.h) unless --capacity gives it; the session warms up for a
// second, then measures for --phase-seconds unloaded, then as long again
// while the flood (flood_clients.h) offers --factor times the capacity;
// the report (flood_report.h) goes to stdout, and with --json FILE to FILE.
//
// Exit codes: 0 the run completed (the latencies are figures, not a
// verdict); 1 the setup failed (no connection, znodes not created, capacity
// not measured, the flood source not bindable); 2 bad arguments.
#pragma once

#include <CLI/CLI.hpp>

#include "zkbench/bench_command.h"

namespace zk::bench {

BenchCommand add_flood_command(CLI::App& app);

}  // namespace zk::bench
