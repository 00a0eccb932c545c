// SPDX-License-Identifier: Apache-2.0
// One zkd at a time per dataDir: the serving daemon and the offline commands
// (import, export, restore) hold an exclusive lock on `<dataDir>/zkd.lock`
// (flock, so the kernel drops it when the process dies; the file holds the
// holder's pid for the operator). Two servers writing one log, or an export reading a log
// that a server is appending to, would each be taken for damage.
#pragma once

#include <filesystem>
#include <memory>

#include "zkd/status/status.h"

namespace zkd::server {

class DataDirLock {
 public:
  ~DataDirLock();
  DataDirLock(DataDirLock&&) noexcept;
  DataDirLock& operator=(DataDirLock&&) noexcept;

 private:
  friend StatusOr<DataDirLock> lock_data_dir(const std::filesystem::path& data_dir);
  explicit DataDirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Takes the lock, creating `data_dir` and the file when missing. A config
// error, naming the holder's pid, when another process holds it.
StatusOr<DataDirLock> lock_data_dir(const std::filesystem::path& data_dir);

}  // namespace zkd::server
