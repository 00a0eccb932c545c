// SPDX-License-Identifier: Apache-2.0
// Engine: runs a Workload against a ZooKeeper ensemble and measures it.
//
// Sessions: a toolkit::SessionPool (session_pool.h): `sessions` sessions spread
// evenly over the addresses, on `threads` threads.
//
// Setup (setup()): creates <root>, <root>/new and the key znodes
// <root>/k0..k<znodes-1> holding `value_bytes` bytes, pipelined (each
// session creates its share, `setup_window` creates in flight). Znodes that
// exist are kept as they are (NODEEXISTS counts as success).
//
// Lanes: every session runs `in_flight` request loops ("lanes"). Closed loop
// (rate 0): a lane sends a request, waits for its answer, records it and
// sends the next; a latency is from send to answer. Open loop (rate > 0):
// each session's lanes take turns at the slots of a fixed schedule,
// rate / sessions per second from the start; a lane waits for its slot
// (unless late) and sends; a latency is from the slot's time to the answer,
// so time lost waiting for a free lane counts (no coordinated omission).
// in_flight then bounds the requests outstanding per session.
//
// Phases: warm-up, then the measured phase. A request belongs to the phase
// in which it was sent (for the open loop: its slot); warm-up requests are
// counted apart (warmup_requests) and in nothing else. The measured phase
// ends after `duration` (no request is sent from then on; those in flight
// are awaited and counted) or, when ops > 0, once `ops` requests were sent
// in it (then exactly `ops` are recorded, unless sessions end). Every answer
// of a measured request is recorded: a success in its op type's count and
// latency histogram, a failure under its op type and error code. Failures do
// not stop a lane, except those after which the session can never succeed
// again (SESSIONEXPIRED, CLOSING, AUTHFAILED): its lanes end and run()
// reports it in `ended`.
//
// A create (op type create) names a fresh znode <root>/new/s<S>-<L>-<N>;
// once it succeeded the lane deletes it (op type delete, a request of its
// own, in the create's phase). In a run of `ops` requests, a delete that
// would be request ops+1 is not sent and its znode stays.
//
// Threads: connect(), setup(), run() and the destructor from one thread (the
// owner's), in that order; progress() and stop() from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "toolkit/session_pool.h"
#include "zkbench/cpu.h"
#include "zkbench/figures.h"
#include "zkbench/server_cpu.h"
#include "zkbench/workload.h"

namespace zk::bench {

struct EngineOptions {
  toolkit::SessionPoolOptions pool;  // addresses, sessions, threads, timeouts
  int in_flight = 1;                 // lanes per session
  Workload workload;
  std::string root = "/zkbench";
  std::chrono::milliseconds warmup{0};
  std::chrono::milliseconds duration{10000};  // of the measured phase, when ops is 0
  int64_t ops = 0;                            // > 0: the measured phase is this many requests
  double rate = 0;                            // > 0: open loop at this many requests/s in all
  int setup_window = 64;                      // creates in flight per session during setup
  // run(): how long past the end of the measured phase it waits for answers
  // in flight, and then for the sessions to close.
  std::chrono::milliseconds stop_deadline{10000};
  // The server processes whose CPU time run() reports beside its own
  // (server_cpu.h); empty: those listening on the addresses' ports here.
  std::vector<pid_t> server_pids;
};

enum class Phase { kIdle, kWarmup, kMeasure, kDone };

// A snapshot while running.
struct Progress {
  Phase phase = Phase::kIdle;
  int64_t requests = 0;                  // measured requests answered so far
  int64_t errors = 0;                    // of those, failed
  std::chrono::nanoseconds measured{0};  // time spent in the measured phase so far
};

struct RunResult {
  std::string error;  // not empty: the run did not happen (why)
  Figures figures;    // the measured requests
  // From the start of the measured phase to the last answer recorded in it.
  std::chrono::nanoseconds measured{0};
  int64_t warmup_requests = 0;     // answered warm-up requests
  CpuUsage cpu;                    // of zkbench over the measured phase and its drain
  ServerCpuUsage server_cpu;       // of the servers, sampled at the same instants
  std::vector<std::string> ended;  // "session 3: SESSIONEXPIRED"
  bool drained = true;  // false: answers still missing at the stop deadline (not counted)
};

class Engine {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Engine(EngineOptions options);
  // Stops a run (stop()), closes the sessions and ends the threads.
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const EngineOptions& options() const;
  // Opens the sessions. Empty on success, else why not.
  std::string connect();
  // Creates the root, <root>/new and the keys (after connect()). Empty on
  // success, else why not.
  std::string setup();
  // Runs the warm-up and the measured phase (once, after connect()); then
  // closes the sessions.
  RunResult run();
  Progress progress() const;
  // Ends the run early: no lane sends again; run() returns what it counted.
  void stop();

  // The path of key `k`: <root>/k<k>.
  static std::string key_path(const std::string& root, int64_t k);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace zk::bench
