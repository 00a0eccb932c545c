// SPDX-License-Identifier: Apache-2.0
// SignalPipe: turns SIGINT, SIGTERM, SIGHUP and SIGCHLD, and notes from other
// threads (a lock's loss callback, a finished acquire), into bytes on one
// pipe that a single thread waits for with a deadline. For the verbs that
// supervise a command (lock, elect).
//
// Handlers are installed by the constructor and the previous dispositions
// restored by the destructor; at most one SignalPipe exists at a time. The
// handlers are async-signal-safe (one write each) and may run on any thread.
#pragma once

#include <chrono>
#include <optional>

namespace zkctl {

class SignalPipe {
 public:
  // Notes other threads may send (any byte that is not a signal number).
  static constexpr char kLost = 'L';
  static constexpr char kAcquired = 'A';

  SignalPipe();
  ~SignalPipe();
  SignalPipe(const SignalPipe&) = delete;
  SignalPipe& operator=(const SignalPipe&) = delete;

  // From any thread (or a signal handler): queue `note`.
  void notify(char note);

  // The next signal number or note, waiting at most `timeout` (none: no
  // limit); nothing when the timeout passed.
  std::optional<char> next(std::optional<std::chrono::milliseconds> timeout);
};

}  // namespace zkctl
