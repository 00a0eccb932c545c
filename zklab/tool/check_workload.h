// SPDX-License-Identifier: Apache-2.0
// The clients of `zklab check` and what they leave: the run's znodes under a
// fresh root, the clients (check_client.h) each in its own thread, and after
// the lab healed the final reads that complete the history: every register
// (sync, then getData, recorded as reads), the listing of each bucket of
// sequential creates (check_client.h: every reply small, however long the
// run), and whether each ephemeral is still there once the server must have
// expired every session that ended.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "zklab/checker/check_history.h"
#include "zklab/tool/check_client.h"
#include "zklab/tool/check_session_limits.h"
#include "zklab/tool/check_watcher.h"
#include "zklab/tool/lab_state.h"

namespace zk::lab::check {

struct WorkloadSettings {
  int clients = 6;
  int registers = 3;
  uint64_t seed = 1;
  SessionLimits limits;  // of the lab's servers
  // For the final reads (they retry until it passes) and the setup.
  std::chrono::milliseconds deadline{30000};
  // The clients' jute.maxbuffer (ClientOptions::max_reply_bytes).
  int32_t max_reply_bytes = zk::client::kDefaultMaxReplyBytes;
};

// Figures of a finished run, for the report.
struct WorkloadFigures {
  int sessions_opened = 0;
  int sessions_expired = 0;
  int sessions_abandoned = 0;  // on purpose, after a missed deadline, or unsure at the end
  int abandoned_on_purpose = 0;
  int ephemerals_dropped = 0;  // whose session's fate at the end could not be told
  std::chrono::milliseconds session_timeout{0};
  std::chrono::milliseconds expiry_wait{0};  // waited for abandoned sessions to expire
};

class CheckWorkload {
 public:
  CheckWorkload(std::vector<LabNode> nodes, WorkloadSettings settings);
  // Stops the clients if they run.
  ~CheckWorkload();
  CheckWorkload(const CheckWorkload&) = delete;
  CheckWorkload& operator=(const CheckWorkload&) = delete;

  // Creates `root` with the registers r0.. (value 0, version 0), the
  // sequential parent with its first bucket and the ephemeral parent. Empty
  // or why not.
  std::string setup(const std::string& root);
  // Starts the clients (sessions spread over the nodes); two of them abandon
  // their session on purpose, at a third and two thirds of `duration`.
  void start(std::chrono::milliseconds duration);
  // Stops the clients and waits until each finished its request in flight.
  void stop();
  // Once the lab serves again (since `healed_ns`, steady_now_ns): the final
  // reads, and the whole history into `history`. Empty, or the step that
  // could not be done and why ("listing /r/seq/b000003: reply of 2097200
  // bytes exceeds the client's jute.maxbuffer (1048575)"); what the clients
  // did is in `history` either way.
  std::string finish(int64_t healed_ns, History& history);
  // Closes every session and deletes the run's znodes (best effort).
  void cleanup();

  const CheckPaths& paths() const { return paths_; }
  WorkloadFigures figures() const;

 private:
  // A session of its own for setup, final reads and cleanup (unless one is
  // open); false if none.
  bool connect_own();
  // closeSession of that session (bounded), if one is open.
  void close_own();
  // The final reads; each returns empty, or the step and why it failed.
  std::string final_reads(int64_t healed_ns, History& history);
  std::string final_registers(History& history, std::chrono::steady_clock::time_point until);
  std::string final_listing(History& history, std::chrono::steady_clock::time_point until);
  std::string final_ephemerals(std::chrono::steady_clock::time_point until);
  // The clients' records into `history`, in invocation order.
  void collect(History& history) const;
  // The buckets any client may have created: 0 to this, less one.
  int64_t buckets() const;
  void wait_for_expiry(int64_t healed_ns);

  std::vector<LabNode> nodes_;
  WorkloadSettings settings_;
  ClientSettings client_settings_;
  CheckPaths paths_;
  ClientIds ids_;
  std::vector<std::unique_ptr<CheckClient>> clients_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::unique_ptr<zk::client::SyncClient> own_;
  std::unique_ptr<CheckWatcher> watcher_;  // from start() on
  int ephemerals_dropped_ = 0;
  std::chrono::milliseconds expiry_wait_{0};
};

}  // namespace zk::lab::check
