// SPDX-License-Identifier: Apache-2.0
// The well-behaved measuring session of `zkbench flood`: one zk::client
// session (SyncClient) doing one request at a time on an open-loop schedule
// of `rate` requests/s, alternately getData and setData (100 bytes) of a
// znode of its own, <root>/measure. A latency is from the request's slot in
// the schedule to its answer, so a request sent late because the one before
// was slow counts the wait (no coordinated omission). Successes and failures
// go to Figures under op types get and set. A phase sends every request of
// its schedule, however late, but none once its end is past by its own
// length (at least kMinGrace): those are counted as unsent, so that a
// server that stalls cannot hold a phase for ever.
//
// Every session state change other than the first Connected is kept with
// the time it came, as a SessionEvent of the phase that was running.
//
// Threads: every member from the owner's thread; the session's listener
// runs on the SyncClient's.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "libzk/client/sync_client.h"
#include "zkbench/figures.h"

namespace zk::bench::flood {

struct SessionEvent {
  std::string phase;                // the phase measuring when it came ("" before the first)
  std::chrono::milliseconds at{0};  // since the session connected
  std::string state;                // "Disconnected", "Expired", "Connected" (again), ...
};

struct PhaseFigures {
  Figures figures;                       // op types get and set
  std::chrono::nanoseconds measured{0};  // from the first slot to the last answer
  int64_t unsent = 0;                    // slots not sent by the end plus the grace
};

inline constexpr std::chrono::seconds kMinGrace{10};

class MeasuringSession {
 public:
  MeasuringSession();
  ~MeasuringSession();
  MeasuringSession(const MeasuringSession&) = delete;
  MeasuringSession& operator=(const MeasuringSession&) = delete;

  // Connects to `servers` (a connect string) and creates <root>,
  // <root>/measure and the znodes in `more` (100 bytes each, kept if they
  // exist). Empty on success, else why not.
  std::string setup(const std::string& servers, const std::string& root,
                    const std::vector<std::string>& more, std::chrono::milliseconds session_timeout,
                    std::chrono::milliseconds connect_deadline);
  // Runs the schedule for `duration` at `rate` per second, recording if
  // `phase` is not empty (else a warm-up, not recorded).
  PhaseFigures measure(const std::string& phase, double rate, std::chrono::nanoseconds duration);
  // The session's events so far (see above).
  std::vector<SessionEvent> events() const;
  int64_t session_id() const { return client_.session_id(); }
  // Closes the session.
  void close();

 private:
  void on_event(zk::client::SessionState s);

  std::string path_;
  std::string value_;
  uint64_t sent_ = 0;      // requests so far: even ones are getData
  mutable std::mutex mu_;  // guards the three below
  std::string phase_;
  std::chrono::steady_clock::time_point connected_;
  std::vector<SessionEvent> events_;
  bool first_connected_ = false;
  // Last, so that it goes first: its listener uses the above.
  zk::client::SyncClient client_;
};

}  // namespace zk::bench::flood
