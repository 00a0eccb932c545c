// SPDX-License-Identifier: Apache-2.0
// The report of a scenario workload (populate, lock, barrier, creates): text
// for people, JSON (zkctl's JsonWriter, integers only) for scripts.
//
// Text: the command and its settings; the measured phase and the headline
// rate (done / measured, in `unit`/s); a row per step with its requests, rate,
// errors and the latency of its successes at p50, p90, p99, p99.9 and max in
// ms (log-bucket histograms, histogram.h: exact to 1/64); the named counts;
// the notes; errors by code with the steps they hit; the sessions that ended;
// every problem, as "PROBLEM: ..."; zkbench's own CPU use, with a warning
// when it kept its threads busy (as the run report does).
//
// JSON (one object): command, config {servers [..], threads, SETTING: value
// ...}, measured_us, unit, done, per_s, counts {NAME: n}, steps {STEP:
// {requests, ok, errors, per_s, errors_by_code {CODE: n}, latency_us {p50,
// p90, p99, p999, max, mean}}}, errors, errors_by_code, cpu {user_us,
// system_us, wall_us, cores, threads}, ended [..], problems [..].
#pragma once

#include <string>

#include "zkbench/scenario.h"

namespace zk::bench {

std::string scenario_text(const ScenarioConfig& config, const ScenarioResult& result);
std::string scenario_json(const ScenarioConfig& config, const ScenarioResult& result);

}  // namespace zk::bench
