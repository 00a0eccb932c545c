// SPDX-License-Identifier: Apache-2.0
// Scenario: what a scenario workload of zkbench (populate, lock, barrier,
// creates) produces, and the small pieces each of them measures with. The
// workloads themselves are in populate.h, lock_contention.h, double_barrier.h
// and create_bench.h; their report in scenario_report.h; the ways they run
// tasks on their sessions in pool_tasks.h.
//
// A scenario runs on a toolkit::SessionPool (session_pool.h): its measured phase is
// from the moment its tasks start to the moment the pool is idle again; a
// request is recorded under the step it belongs to ("acquire", "enter", ...)
// with its latency when it succeeded, under its error code when it failed.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "zkbench/cpu.h"
#include "zkbench/figures.h"

namespace zk::bench {

// One step of a scenario: its requests (or, for lock and barrier, the
// acquisitions, entries and exits they make up), successes with latencies,
// failures by code.
struct ScenarioStep {
  std::string name;
  OpFigures figures;
};

// How a scenario was run, for its report: the command, the servers, the io
// threads (zkbench's CPU warning needs them) and the settings in the order
// they are reported (integers or strings).
struct ScenarioConfig {
  std::string command;  // "populate", "lock", "barrier", "creates"
  std::vector<std::string> servers;
  int threads = 1;
  std::vector<std::pair<std::string, std::variant<int64_t, std::string>>> settings;
};

struct ScenarioResult {
  std::string error;  // not empty: the scenario did not run (no connection, setup failed): why
  std::string unit;   // what `done` counts: "creates", "acquisitions", "rounds"
  int64_t done = 0;
  std::chrono::nanoseconds measured{0};  // the measured phase
  CpuUsage cpu;                          // zkbench's, over the measured phase
  std::vector<ScenarioStep> steps;       // in report order
  // Named figures in report order ("created", "existing", "notifications").
  std::vector<std::pair<std::string, int64_t>> counts;
  std::vector<std::string> notes;  // lines of derived figures for the text report
  // Sessions (clients, workers) that stopped early: "client 3: SESSIONEXPIRED".
  std::vector<std::string> ended;
  // Why the scenario failed although it ran (zkbench exits 1): a violation
  // of mutual exclusion, rounds or znodes not completed.
  std::vector<std::string> problems;
};

// Records the requests of a scenario's steps, per io thread and without a
// lock: a thread's figures are touched only by the tasks of the sessions it
// runs (toolkit::SessionPool: session i on thread i % threads), and merged() is called
// once the pool is idle (toolkit::SessionPool::wait_idle orders it after them).
class StepFigures {
 public:
  using Clock = std::chrono::steady_clock;

  // `steps` names the steps; step k is recorded as record(.., k, ..).
  StepFigures(size_t threads, std::vector<std::string> steps);

  // A request of step `step`, on io thread `thread`, sent at `start` and
  // answered now with `e`: a success with its latency, or a failure.
  void record(size_t thread, size_t step, Clock::time_point start, zk::wire::Error e);
  // Every thread's figures added up, a ScenarioStep per step in order.
  std::vector<ScenarioStep> merged() const;

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<OpFigures>> by_thread_;  // [thread][step]
};

// The wall-clock time and zkbench's CPU time between start() and stop().
class Measurement {
 public:
  void start();
  // Sets r.measured and r.cpu to what was spent since start().
  void stop(ScenarioResult& r) const;

 private:
  std::chrono::steady_clock::time_point wall_from_;
  CpuTimes cpu_from_;
};

}  // namespace zk::bench
