// SPDX-License-Identifier: Apache-2.0
// One zklab command at a time changes a lab: commands that start, stop or
// signal nodes or change the network hold an exclusive lock on <lab>/.lock
// (flock) for as long as they run; those that only look (status, logs) take
// none. The lock is released when its holder exits, however it exits.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

namespace zk::lab {

class LabLock {
 public:
  // Takes the lock of the lab in `dir` (creating `dir` if missing), waiting
  // until `deadline` while another process holds it. locked() says whether
  // it was taken; error() why not (with the holder's pid when known).
  LabLock(const std::filesystem::path& dir, std::chrono::milliseconds deadline);
  ~LabLock();
  LabLock(const LabLock&) = delete;
  LabLock& operator=(const LabLock&) = delete;

  bool locked() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }

 private:
  int fd_ = -1;  // the lock file, close-on-exec so that spawned daemons do not hold it
  std::string error_;
};

}  // namespace zk::lab
