// SPDX-License-Identifier: Apache-2.0
// Report: a run's figures as text (for people), JSON and CSV (for scripts).
//
// Rates are requests answered in the measured phase over its length
// (RunResult::measured); latencies come from the log-bucket histograms
// (histogram.h: exact to 1/64) of the successful requests, in ms in the
// text and in whole µs in JSON and CSV. The op types listed are those of
// the mix (with delete when create is in it) and any other that was
// recorded. Errors are listed by code, with the op types they hit. zkbench's
// own CPU use is given, with a warning when it is close to what its threads
// can use (then the client, not the server, may be the bottleneck), and the
// servers' (server_cpu.h: all server processes summed, over the same span)
// in seconds and in µs per request, or why it is unknown.
//
// JSON (one object, integers only): config {servers, sessions, in_flight,
// threads, mix, znodes, keys, value_bytes, seed, warmup_ms, duration_ms (null
// with ops), ops (null with duration), rate (0: closed loop)}, measured_us,
// warmup_requests, requests, ok, errors, ops_per_s, errors_by_code {CODE: n},
// ops {TYPE: {requests, ok, errors, ops_per_s, errors_by_code, latency_us
// {p50, p90, p99, p999, max, mean}}}, cpu {user_us, system_us, wall_us,
// cores, threads}, server_cpu {pids [..], cpu_us, ns_per_op (null when
// unknown, or without a request), unknown (why; null when known)}, ended
// [..], drained.
//
// CSV: a header, then one row per op type listed and a row "total":
// op,requests,ok,errors,ops_per_s,p50_us,p90_us,p99_us,p999_us,max_us,errors_by_code,
// server_cpu_us,server_cpu_ns_per_op (errors_by_code: CODE:n separated by
// ';'; the server CPU on the total row only, empty when unknown).
//
// The pieces the scenario report (scenario_report.h) shares with this one are
// declared here too: the table of requests and latencies, the errors line,
// zkbench's CPU line and warning, and their JSON.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "zkbench/cpu.h"
#include "zkbench/engine.h"
#include "zkbench/figures.h"
#include "zkbench/histogram.h"

namespace zk::json {
class JsonWriter;
}

namespace zk::bench {

// The version of the layout of zkbench's JSON documents, the "format" that
// every one of them starts with.
inline constexpr int kJsonFormat = 1;

// `value` as printf's `fmt` (one double conversion) writes it.
std::string format_double(const char* fmt, double value);

// `n` over `span`, per second (0 when the span is empty).
double per_second(int64_t n, std::chrono::nanoseconds span);

// Requests answered in the measured phase per second of it (0 when it had no
// length): the rate every report gives.
double ops_per_second(int64_t requests, const RunResult& r);

// The text table of requests and latencies. The header names the first three
// columns `name`, `count` and `rate`, then errors and p50, p90, p99, p99.9
// and max in ms; a row gives `name`, f's requests, `rate` (per second), f's
// errors and the latency of its successes. Each ends with a newline.
std::string latency_table_header(const char* name, const char* count, const char* rate);
std::string latency_table_row(const std::string& name, const OpFigures& f, double rate);

// "errors: none", or "errors: CODE n (PART n, PART n) CODE n (...)": each
// code of the named parts' error counts added up, with the parts it hit in
// their order; no newline.
std::string errors_line(
    const std::vector<std::pair<std::string, const std::map<zk::wire::Error, int64_t>*>>& parts);

// "errors_by_code": {CODE: n}.
void json_errors_by_code(json::JsonWriter& j, const std::map<zk::wire::Error, int64_t>& errors);

// "latency_us": {p50, p90, p99, p999, max, mean} of `h` (ns), in whole µs.
void json_latency(json::JsonWriter& j, const Histogram& h);

// zkbench's own CPU use: "zkbench cpu: 0.50 s user + 0.12 s system over 1.30
// s = 48% of one core (8 cores)"; no newline.
std::string cpu_line(const CpuUsage& c);

// "warning: zkbench kept its N thread(s) busy: the client may be the
// bottleneck (try more --threads)" when `c` is at least 80% of the N threads
// zkbench can keep busy (its `threads` io threads, at most the machine's
// cores; 1 at least); nothing otherwise. No newline.
std::optional<std::string> cpu_warning(const CpuUsage& c, int threads);

// "cpu": {user_us, system_us, wall_us, cores, threads}.
void json_cpu(json::JsonWriter& j, const CpuUsage& c, int threads);

// The workload's settings every JSON report carries in its config object
// (servers and mix apart): sessions, in_flight, threads, znodes, keys,
// value_bytes, seed, warmup_ms, duration_ms, ops, rate.
void json_workload_fields(json::JsonWriter& j, const EngineOptions& o);

// The servers' CPU time per request answered in the measured phase, in µs;
// nothing when unknown (RunResult::server_cpu) or without a request.
std::optional<double> server_us_per_op(const RunResult& r);

// "server cpu: 1.23 s user+system of 3 process(es) (pids) over 2.00 s = 62%
// of one core; 12.3 us per request", or "server cpu: unknown (why)"; no
// newline.
std::string server_cpu_line(const RunResult& r);

// "server_cpu": {pids, cpu_us, ns_per_op, unknown}, as in the run's JSON.
void json_server_cpu(json::JsonWriter& j, const RunResult& r);

// The op types a report lists (see above), in the order of kAllOpTypes.
std::vector<OpType> listed_op_types(const Workload& workload, const Figures& figures);

std::string text_report(const EngineOptions& options, const RunResult& result);
std::string json_report(const EngineOptions& options, const RunResult& result);
std::string csv_report(const EngineOptions& options, const RunResult& result);

}  // namespace zk::bench
