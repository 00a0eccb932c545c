// SPDX-License-Identifier: Apache-2.0
// Load: a read/write load on a ZooKeeper ensemble through zk::client, with
// every completion counted in fixed buckets of time (timeline.h). The engine
// of `zklab failover` and bench/failover_bench. Its sessions are a
// zk::toolkit::SessionPool (toolkit/session_pool.h); the loops and the
// recording are its own.
//
// Shape: `sessions` async sessions, session i connected first to
// addresses[i % n] (its connect string is the address list rotated to start
// there, not shuffled, so the sessions spread evenly and a session fails over
// to the next address). Each session has its own znode <root>/s<i>, and
// `in_flight` request loops ("lanes"): each loop sends one request, waits for
// its reply, records it, and sends the next. A request is a getData of the
// session's znode with probability `read_ratio`, else a setData of
// `value_bytes` bytes on it.
//
// Recording: a completion counts in the bucket of its completion time,
// (done - origin) / bucket, origin being the instant start() returned; a
// successful read in `reads`, a successful write in `writes`, a failure in
// `errors` under its code. Errors do not stop a loop, except those after
// which the session can never succeed again (SESSIONEXPIRED, CLOSING,
// AUTHFAILED): the session's loops end and the session is listed by ended().
//
// Threads: the sessions run on the pool's `threads` io_context threads
// (session i on thread i % threads); recording takes a per-thread lock.
// connect(), start(), stop() and the destructor are called from one thread
// (the owner's), in that order; mark() and the queries from any thread once
// start() has returned.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "toolkit/client_security.h"
#include "zklab/load/timeline.h"

namespace zk::lab {

struct LoadOptions {
  std::vector<std::string> addresses;  // "host:port" each; at least one
  int sessions = 8;
  int in_flight = 1;                 // request loops per session
  double read_ratio = 0.5;           // 0: writes only, 1: reads only
  int value_bytes = 100;             // bytes of every setData (and of each znode at creation)
  std::string root = "/zklab-load";  // the parent of the sessions' znodes (created if missing)
  int threads = 1;                   // io_context threads
  std::chrono::milliseconds bucket{100};
  std::chrono::milliseconds session_timeout{30000};   // requested
  std::chrono::milliseconds connect_deadline{20000};  // connect(): per session
  std::chrono::milliseconds reconnect_backoff{20};    // zk::client::ClientOptions
  std::chrono::milliseconds stop_deadline{10000};     // stop(): for the sessions to close
  uint64_t seed = 1;                                  // of each loop's read-or-write choice
  toolkit::ClientSecurity security;                   // the sessions' TLS and SASL
};

// The longest interval without a successful write, over all sessions: from
// one successful write's completion to the next one's.
struct WriteGap {
  std::chrono::microseconds length{0};
  std::chrono::microseconds ended_at{0};  // the later completion, from the origin
};

// What the writes sent after the mark (Load::mark) have done.
struct LoadRecovery {
  // The earliest completion, over all sessions, of a successful write sent
  // at or after the mark.
  std::optional<std::chrono::steady_clock::time_point> first;
  // The latest of the sessions' first such completions, once every session
  // had one (nothing while some session has none).
  std::optional<std::chrono::steady_clock::time_point> all;
  int sessions_without = 0;  // sessions with none yet
};

class Load {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Load(LoadOptions options);
  // Stops the load (stop()) and ends its threads.
  ~Load();
  Load(const Load&) = delete;
  Load& operator=(const Load&) = delete;

  // Opens every session and creates the root and each session's znode
  // (NODEEXISTS is fine). Empty on success, else why not.
  std::string connect();
  // Starts every loop (after a successful connect()); returns the origin of
  // the buckets: now.
  Clock::time_point start();
  // Sets the mark (once; later calls are ignored): from now on each
  // session's first successful write sent at or after `t` is noted.
  void mark(Clock::time_point t);
  LoadRecovery recovery() const;
  // Waits until every session had a successful write sent after the mark or
  // ended, or until `until`; true in the first case.
  bool wait_all_recovered(Clock::time_point until) const;

  // The whole buckets in [origin, until): (until - origin) / bucket of them,
  // later completions left out. Empty before start().
  std::vector<LoadBucket> buckets(Clock::time_point until) const;
  // Every completion so far, added up.
  LoadBucket totals() const;
  // The longest gap between successful writes so far (zero before two).
  WriteGap longest_write_gap() const;
  // The longest gap between successful writes that ended since the last
  // call (since start(), the first time): one step of an experiment's.
  WriteGap take_write_gap();
  // The sessions whose loops ended on an error: "session 3: SESSIONEXPIRED".
  std::vector<std::string> ended() const;

  // Ends the loops: each ends once its request in flight is answered, and
  // every session is closed (a closing session fails what it still has
  // queued). Waits up to stop_deadline; failures completing after the call
  // are not recorded. Idempotent.
  void stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace zk::lab
