// SPDX-License-Identifier: Apache-2.0
// The reports of `zkbench keeper-bench` (keeper_bench_runner.h):
//
// keeper_json(): the JSON object keeper-bench writes (its Stats::writeJSON),
// so that scripts made for it read zkbench's:
//   {"timestamp": MS, "errors": N, "ops": N,
//    "read_results":  {"total_requests": N, "requests_per_second": X,
//                      "bytes_per_second": X,
//                      "percentiles": [{"0.00": MS}, {"10.00": MS}, ...,
//                                      {"90.00": MS}, {"95.00": MS},
//                                      {"99.00": MS}, {"99.90": MS},
//                                      {"99.99": MS}]},
//    "write_results": {... the same}}
// timestamp: the measured phase's start, in ms since the Unix epoch; errors:
// the requests that failed (not counted below); ops: the answered requests;
// read_results (get, list, multiRead) and write_results (create, remove,
// set, multi), each only when it has an answered request: answered
// requests, and per second of the measured phase (as keeper-bench does
// today; older versions divided by the summed latencies instead), bytes
// (keeper_bench_send.h) per second, latency percentiles of the answered
// requests in ms (nearest rank of zkbench's log-bucket histograms, exact to
// 1/64; keeper-bench samples a reservoir). Numbers are JSON numbers
// (shortest round trip); there are no strings.
//
// keeper_text(): zkbench's scenario report (scenario_report.h) with a step
// per StatKind that has requests, the read and write figures of the JSON as
// notes, the servers' CPU, and a problem when the first error ended the run.
//
// progress_line(): the line printed every report_delay seconds.
#pragma once

#include <string>
#include <vector>

#include "zkbench/keeper_bench_runner.h"
#include "zkbench/scenario.h"

namespace zk::bench::keeper {

std::string keeper_json(const RunResult& result);

// How the run was configured, for the text report.
struct RunDescription {
  std::string config_path;
  std::vector<std::string> servers;  // "host:port" per target
  int threads = 1;                   // io threads of every pool
  int64_t sessions = 0;
  uint64_t seed = 0;
  size_t setup_znodes = 0;
  Config config;
};

// The scenario form of the result (also used by the text report).
ScenarioResult scenario_of(const RunDescription& d, const RunResult& r);
ScenarioConfig scenario_config_of(const RunDescription& d);
std::string keeper_text(const RunDescription& d, const RunResult& r);

// "keeper-bench: 2.0 s measured: 1234 requests (600 reads, 634 writes), 617
// requests/s over the last 1.0 s, 0 errors" (or "warming up: ..."); `before`
// is the previous report's progress (zero for the first), `span` the time
// between them. No newline.
std::string progress_line(const Progress& now, const Progress& before, double span_s);

}  // namespace zk::bench::keeper
