// SPDX-License-Identifier: Apache-2.0
// The watcher of `zklab check`: a session with a persistent watch on every
// register, recording each NodeDataChanged with the zxid its notification
// carried and the number of the connection it came on (check_history.h,
// WatchEventRecord), for check_watches (check_verdict.h). A session that
// expires is replaced by a new one, its watches set again.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "zklab/checker/check_history.h"
#include "zklab/tool/check_client.h"

namespace zk::lab::check {

class CheckWatcher {
 public:
  // `settings`: the servers and timeouts of its sessions; `registers`: the
  // paths to watch (they exist).
  CheckWatcher(ClientSettings settings, std::vector<std::string> registers);
  ~CheckWatcher();  // stops
  CheckWatcher(const CheckWatcher&) = delete;
  CheckWatcher& operator=(const CheckWatcher&) = delete;

  // Opens the first session and sets its watches, on a thread of its own.
  void start();
  // Ends the session and the thread; then events() is final.
  void stop();
  // The events recorded so far, in the order they came.
  std::vector<WatchEventRecord> events() const;

 private:
  void run();
  // One session: connects, sets the watches, waits until it expires or
  // stop(). False when it could not connect or set a watch.
  bool watch_one_session(int watcher);

  const ClientSettings settings_;
  const std::vector<std::string> registers_;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool expired_ = false;
  std::vector<WatchEventRecord> events_;
};

}  // namespace zk::lab::check
