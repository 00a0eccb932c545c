// Report: a run's figures as text (for people), JSON and CSV (for scripts).
//
// Rates are requests answered in the measured phase over its length
// (RunResult::measured); latencies come from the log-bucket histograms
// (histogram.h: exact to 1/64) of the successful requests, in ms in the
// text and in whole µs in JSON and CSV. The op types listed are those of
// the mix (with delete when create is in it) and any other that was
// recorded. Errors are listed by code, with the op types they hit. zkbench's
// own CPU use is given, with a warning when it is close to what its threads
// can use (then the client, not the server, may be the bottleneck).
//
// JSON (one object, integers only): config {servers, sessions, in_flight,
// threads, mix, znodes, keys, value_bytes, seed, warmup_ms, duration_ms (null
// with ops), ops (null with duration), rate (0: closed loop)}, measured_us,
// warmup_requests, requests, ok, errors, ops_per_s, errors_by_code {CODE: n},
// ops {TYPE: {requests, ok, errors, ops_per_s, errors_by_code, latency_us
// {p50, p90, p99, p999, max, mean}}}, cpu {user_us, system_us, wall_us,
// cores, threads}, ended [..], drained.
//
// CSV: a header, then one row per op type listed and a row "total":
// op,requests,ok,errors,ops_per_s,p50_us,p90_us,p99_us,p999_us,max_us,errors_by_code
// (errors_by_code: CODE:n separated by ';').
#pragma once

#include <string>
#include <vector>

#include "zkbench/engine.h"

namespace zkctl {
class JsonWriter;
}

namespace zk::bench {

// Requests answered in the measured phase per second of it (0 when it had no
// length): the rate every report gives.
double ops_per_second(int64_t requests, const RunResult& r);

// The workload's settings every JSON report carries in its config object
// (servers and mix apart): sessions, in_flight, threads, znodes, keys,
// value_bytes, seed, warmup_ms, duration_ms, ops, rate.
void json_workload_fields(zkctl::JsonWriter& j, const EngineOptions& o);

// The op types a report lists (see above), in the order of kAllOpTypes.
std::vector<OpType> listed_op_types(const Workload& workload, const Figures& figures);

std::string text_report(const EngineOptions& options, const RunResult& result);
std::string json_report(const EngineOptions& options, const RunResult& result);
std::string csv_report(const EngineOptions& options, const RunResult& result);

}  // namespace zk::bench
