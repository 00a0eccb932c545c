// SPDX-License-Identifier: Apache-2.0
// Reports of several runs: `zkbench sweep` (one run per read percentage) and
// `zkbench compare` (the same workload against two ensembles, A then B, for
// several rounds).
//
// Every figure of a run is as in report.h: ops/s is the requests answered in
// the measured phase over its length, latencies are percentiles of the
// successful requests (ms in text, whole µs in JSON and CSV), the server CPU
// is that of all server processes summed (server_cpu.h), in all and per
// request ("server cpu s" and "server us/op" in text; "-" / null / empty
// when unknown, and the text says why).
//
// Sweep: a row per step: reads %, requests, ops/s, errors, p50/p90/p99 of
// get and of set ("-" / null when the step has none of that type), server
// cpu s, server us/op.
// JSON: {config {servers, sessions, in_flight, threads, znodes, keys,
// value_bytes, seed, warmup_ms, duration_ms, ops, rate}, steps [{reads,
// requests, ok, errors, ops_per_s, measured_us, server_cpu_us,
// server_cpu_ns_per_op, get {requests, ok, p50_us, p90_us, p99_us}, set
// {...}}]}.
// CSV: reads,requests,ok,errors,ops_per_s,get_requests,get_p50_us,
// get_p90_us,get_p99_us,set_requests,set_p50_us,set_p90_us,set_p99_us,
// server_cpu_us,server_cpu_ns_per_op.
//
// Compare: per round a row for A, a row for B and a row of ratios A/B
// (ops/s, errors, server cpu s and us/op, and p50/p90/p99 of every op type
// listed; the ratio row has none for errors and server cpu s; above 1 for
// ops/s and below 1 for latencies and server us/op favour A); then the
// medians over the rounds of each side's figures and of the per-round
// ratios. JSON (integers only; ratios in thousandths, 1000 = equal): {config
// {..as sweep.., mix}, a {name, servers}, b {..}, ratio "a/b", rounds
// [{round, a {ops_per_s, requests, errors, server_cpu_us,
// server_cpu_ns_per_op, ops {TYPE {p50_us, p90_us, p99_us}}}, b {..},
// a_over_b_x1000 {ops_per_s, server_cpu_per_op, ops {TYPE {p50, p90,
// p99}}}}],
// median {a {..}, b {..}, a_over_b_x1000 {..}}}; a ratio whose divisor is 0
// or missing is null.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "zkbench/engine.h"

namespace zk::bench {

struct SweepStep {
  int reads = 0;  // percent
  RunResult result;
};

// `options`: the sweep's options (its mix is ignored: each step has its own).
std::string sweep_text(const EngineOptions& options, const std::vector<SweepStep>& steps);
std::string sweep_json(const EngineOptions& options, const std::vector<SweepStep>& steps);
std::string sweep_csv(const std::vector<SweepStep>& steps);

struct CompareSide {
  std::string name;       // "zkd"
  EngineOptions options;  // its servers; the workload is the same for both
};

struct CompareRound {
  RunResult a, b;
};

std::string compare_text(const CompareSide& a, const CompareSide& b,
                         const std::vector<CompareRound>& rounds);
std::string compare_json(const CompareSide& a, const CompareSide& b,
                         const std::vector<CompareRound>& rounds);

// The median of `values` (the mean of the middle two for an even count);
// nothing for none.
std::optional<double> median(std::vector<double> values);

}  // namespace zk::bench
