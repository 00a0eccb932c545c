// SPDX-License-Identifier: Apache-2.0
// The report of `zkbench flood`: the measuring session's latencies unloaded
// and under the flood, their p99 ratios, its session events and what the
// flood offered and got.
//
// Text: the capacity and the offered rate; per phase a table of the
// measuring session's get and set (report.h's latency table: requests,
// rate, errors, p50 .. max in ms) and the requests left unsent (if any);
// the p99 ratios flood/unloaded; the session events ("none", or "PHASE +SECONDS STATE" each); a
// table of the flood per kind (flood_clients.h's counts, and offered and answered per second).
//
// JSON (one object; latencies in whole µs as report.h's latency_us):
// format, command "flood", config {servers, factor, kinds [..],
// measure_rate, phase_seconds, flood_source, large_bytes, root}, capacity
// {ops_per_s, measured (false when given), errors}, offered_per_s, phases
// {unloaded, flood: {measured_us, unsent, ops {get, set: {requests, ok, errors,
// errors_by_code, latency_us}}}}, p99_ratio {get, set} (a number; null when
// a p99 is missing), session_events [{phase, at_ms, state}], flood_seconds,
// flood {KIND: {rate, offered, sent, answered, errors, connections,
// sessions, refused, closed, offered_per_s, answered_per_s}}.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "zkbench/flood_clients.h"
#include "zkbench/flood_measure.h"

namespace zk::bench::flood {

struct FloodConfig {
  std::string servers;  // the connect string
  double factor = 10;
  std::vector<Kind> kinds;
  double measure_rate = 200;
  double phase_seconds = 10;
  std::string flood_source;
  int large_bytes = 512 * 1024;
  std::string root;
};

struct FloodReport {
  FloodConfig config;
  double capacity = 0;
  bool capacity_measured = false;
  int64_t capacity_errors = 0;
  double offered_per_s = 0;            // factor x capacity
  std::array<double, kKinds> rates{};  // FloodPlan::rates
  PhaseFigures unloaded;
  PhaseFigures flood;
  std::vector<SessionEvent> events;
  FloodResult result;
};

// flood p99 / unloaded p99 of `op` (get or set); nothing when either has no success.
std::optional<double> p99_ratio(const FloodReport& r, OpType op);

std::string flood_text(const FloodReport& r);
std::string flood_json(const FloodReport& r);

}  // namespace zk::bench::flood
