// ZkdRunner: one zkd process for benchmarks, on a data dir that outlives it,
// so the benchmark can SIGKILL it and start it again on the same files and
// port. Writes zoo.cfg into `dir` (dataDir = dir/data), picks a free loopback
// port once, sends zkd's output to dir/zkd.log (appended across restarts).
//
// Threading: use one ZkdRunner from one thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace zk::bench {

class ZkdRunner {
 public:
  // Does not start anything; `extra_lines` are appended to zoo.cfg verbatim.
  ZkdRunner(std::string binary, std::filesystem::path dir, std::vector<std::string> extra_lines);
  // Kills the process if it still runs (the directory is left alone).
  ~ZkdRunner();
  ZkdRunner(const ZkdRunner&) = delete;
  ZkdRunner& operator=(const ZkdRunner&) = delete;

  // Starts zkd; returns at once (see wait_serving). Empty on success, else why.
  std::string spawn();
  // Waits, with a deadline, until zkd answers `srvr`. Empty on success.
  std::string wait_serving(std::chrono::milliseconds deadline);
  // SIGKILL and reap.
  void kill();

  pid_t pid() const { return pid_; }
  std::string hosts() const { return "127.0.0.1:" + std::to_string(port_); }
  const std::filesystem::path& directory() const { return dir_; }
  std::filesystem::path data_dir() const { return dir_ / "data"; }
  std::string log_tail(size_t bytes = 4000) const;

 private:
  bool exited_within(std::chrono::milliseconds wait);

  std::string binary_;
  std::filesystem::path dir_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
  int pidfd_ = -1;
};

// Sends a four-letter word to host:port and returns the whole answer; empty
// when the server cannot be reached before the deadline.
std::string four_letter_word(const std::string& host, uint16_t port, const std::string& word,
                             std::chrono::milliseconds deadline);

// VmRSS of a process in KiB from /proc/<pid>/status; -1 when unreadable.
int64_t resident_kib(pid_t pid);

}  // namespace zk::bench
