// SPDX-License-Identifier: Apache-2.0
// Runner: runs a keeper-bench configuration (keeper_bench_config.h) against
// an ensemble, as ClickHouse's keeper-bench does, on zkbench's session pools
// (toolkit/session_pool.h). zkbench's Engine (engine.h) is built around its
// own key znodes and op mix; keeper-bench's generators go anywhere, so they
// get this runner beside it.
//
// Sessions: one SessionPool per server (Target), of that server only (no
// failover, as keeper-bench's sessions), `sessions` sessions each.
//
// prepare(): on the first target's sessions, removes each setup root and
// everything under it (pipelined, deepest first; NONODE is fine), creates
// the setup tree (keeper_bench_generator.h: expand_setup(), pipelined level
// by level), then lists the parents of children_of once and resolves the
// generators' paths. A failed create or list ends it with the reason.
//
// run(): concurrency x pipeline_depth request loops ("lanes", spread over
// the sessions' threads). A lane draws a request (its own RequestGenerator),
// sends it on a session drawn uniformly from every session still usable
// (the request runs on that session's thread, as a task of its pool) and
// waits for the answer, at most the target's operation timeout (then it
// counts OPERATIONTIMEOUT and goes on; the late answer is dropped). Phases:
// warm-up (warmup_s: requests not counted), then the measured phase, which
// ends once `iterations` requests were sent in it (0: no limit) or once
// timelimit_s has passed (0: none) or at stop(); requests in flight are
// awaited and counted. Answers are recorded as keeper-bench does: answered
// (success, or a tolerated NONODE of a remove: keeper_bench_send.h) with
// latency and bytes, by StatKind; anything else is an error (by code).
// With continue_on_error false the first error ends the run (no lane sends
// again) and is reported; with it true, a session that can never succeed
// again (SESSIONEXPIRED, ...) is no longer drawn (keeper-bench would open a
// new one) and the run ends when none is left.
//
// cleanup(): removes the setup roots again (keeper-bench does so at exit).
//
// Threads: every member function from one thread (the owner's), in the
// order connect, prepare, run, cleanup, except progress() and stop() (any
// thread). run() calls `report` on the owner's thread.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "toolkit/session_pool.h"
#include "zkbench/cpu.h"
#include "zkbench/figures.h"
#include "zkbench/keeper_bench_config.h"
#include "zkbench/keeper_bench_generator.h"
#include "zkbench/server_cpu.h"

namespace zk::bench::keeper {

// The sessions to one server.
struct Target {
  toolkit::SessionPoolOptions pool;  // one address
  std::chrono::milliseconds operation_timeout{10000};
};

struct RunnerOptions {
  std::vector<Target> targets;  // at least one
  Config config;                // its setup, requests and run settings
  uint64_t seed = 1;            // of the setup's random names and every lane's draws
  // How long the destructor waits for the sessions' closing.
  std::chrono::milliseconds stop_deadline{10000};
};

// What the requests of one StatKind came to.
struct KindFigures {
  OpFigures figures;      // answered (latencies) and errors by code
  int64_t bytes = 0;      // of the answered ones (keeper_bench_send.h)
  int64_t tolerated = 0;  // of the answered ones: NONODE to a remove
};

struct Progress {
  bool measuring = false;  // past the warm-up
  int64_t reads = 0;       // measured requests answered so far (errors included)
  int64_t writes = 0;
  int64_t errors = 0;
  std::chrono::nanoseconds measured{0};
};

struct RunResult {
  std::string error;                          // not empty: the run did not happen (why)
  std::array<KindFigures, kStatKinds> kinds;  // indexed by StatKind
  std::chrono::nanoseconds measured{0};       // from the measured phase's start to its end
  int64_t start_unix_ms = 0;                  // when the measured phase started
  int64_t warmup_requests = 0;
  CpuUsage cpu;               // zkbench's, over the measured phase
  ServerCpuUsage server_cpu;  // the servers', over the same span
  // continue_on_error false: the error that ended the run ("get /a: NONODE").
  std::string stopped_by;
  std::vector<std::string> ended;  // "session 3 (127.0.0.1:2181): SESSIONEXPIRED"
};

class Runner {
 public:
  using Clock = std::chrono::steady_clock;
  using Report = std::function<void(const Progress&)>;

  explicit Runner(RunnerOptions options);
  // Stops a run and closes every session.
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Opens every session. Empty on success, else why not.
  std::string connect();
  // The setup and the generators' paths (see above). Empty on success.
  std::string prepare();
  // The setup tree prepare() created.
  const SetupTree& setup_tree() const;
  // The run (once, after prepare()); `report` every `every` (0: never).
  RunResult run(const Report& report, std::chrono::milliseconds every);
  // Removes the setup roots and what is under them. Empty on success.
  std::string cleanup();

  Progress progress() const;
  // Ends the run early: no lane sends again; run() returns what it counted.
  void stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace zk::bench::keeper
