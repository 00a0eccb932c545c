// SPDX-License-Identifier: Apache-2.0
// ZkdProcess: one zkd process on this machine, for process tests, benchmarks
// and zklab. Writes a zoo.cfg into a directory (a fresh temporary one, or one
// the caller names), picks a free loopback port (reserved while the object
// lives: port_reservation.h), starts the zkd binary the caller names (or
// another command reading that zoo.cfg, e.g. Apache ZooKeeper under java) and
// waits, with a deadline, until it answers `srvr`.
// It can be signalled (SIGKILL, SIGTERM, SIGSTOP/SIGCONT), waited for, and
// started again on the same zoo.cfg, data dir and port.
//
// Ownership: the destructor SIGKILLs the process if it still runs and reaps
// it. A temporary directory is removed then (unless keep_directory() was
// called); a directory the caller named is left alone.
//
// Layout of the directory: zoo.cfg, data/ (the dataDir; its version-2/ holds
// logs and snapshots) and zkd.log (stdout and stderr of every run, appended).
//
// Threading: use one ZkdProcess from one thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "toolkit/child_process.h"
#include "zklab/process/port_reservation.h"

namespace zk::lab {

struct ZkdOptions {
  std::string binary;  // the zkd executable to start; required unless `command` is set
  // When set, run this instead of `binary --config <dir>/zoo.cfg`: command[0]
  // is the executable's path (no PATH lookup), and every argument equal to
  // "{config}" is replaced by the zoo.cfg path.
  std::vector<std::string> command;
  // Where zoo.cfg, data/ and zkd.log go. Unset: a fresh directory
  // <temp>/<temp_dir_prefix>_XXXXXX, removed by the destructor. Set: created
  // if missing and kept; the data in data/ from an earlier run is reused.
  std::optional<std::filesystem::path> dir;
  std::string temp_dir_prefix = "zkd_lab";
  uint16_t port = 0;  // clientPort; 0 picks a free loopback port, reserved while this lives
  int tick_time_ms = 2000;
  std::optional<int> min_session_timeout_ms;
  std::optional<int> max_session_timeout_ms;
  int max_client_cnxns = 60;
  std::string four_letter_whitelist = "*";
  std::vector<std::string> extra_lines;  // appended to zoo.cfg verbatim
  // NAME=VALUE settings added to zkd's environment (set_environment() below).
  std::vector<std::string> environment;
  // When set, written as zoo.cfg instead of the generated text ({port} and
  // {dataDir} are replaced); the process is then not required to come up.
  std::optional<std::string> raw_config;
  std::chrono::milliseconds start_deadline{15000};  // for start() and restart()
  // start() waits until srvr answers "Zookeeper version: ..."; false: start()
  // returns once the process is spawned (a quorum member cannot answer so
  // before its peers run; the caller waits for what it needs).
  bool wait_until_ready = true;
};

class ZkdProcess;

struct StartResult {
  std::unique_ptr<ZkdProcess> process;  // set when zkd answered srvr in time
  std::string error;                    // otherwise: why, with zkd's log
};

class ZkdProcess {
 public:
  // Writes zoo.cfg, starts zkd and waits (options.start_deadline) until it
  // answers srvr (unless options.wait_until_ready is false).
  static StartResult start(const ZkdOptions& options);

  ~ZkdProcess();
  ZkdProcess(const ZkdProcess&) = delete;
  ZkdProcess& operator=(const ZkdProcess&) = delete;

  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }
  // host:port, a connect string.
  std::string address() const { return host_ + ":" + std::to_string(port_); }
  const std::filesystem::path& directory() const { return dir_; }
  // dataDir of the generated zoo.cfg (its version-2/ holds logs and snapshots).
  std::filesystem::path data_dir() const { return dir_ / "data"; }
  // The current (or last) run's process id; -1 before the first run.
  pid_t pid() const { return pid_; }
  // Leave a temporary directory in place when destroyed (to look at it).
  void keep_directory() { keep_dir_ = true; }
  // NAME=VALUE settings added to the environment of the next runs (restart(),
  // respawn()); empty: the runs inherit this process's environment alone.
  // For ZKD_FAILPOINTS (zkd/failpoint/failpoint.h).
  void set_environment(std::vector<std::string> settings) { environment_ = std::move(settings); }

  // Sends a signal (SIGTERM, SIGKILL, SIGSTOP, SIGCONT, ...); false if the
  // process is gone.
  bool signal(int signal_number);
  // Waits for the process to exit; its wait status, or nothing at the deadline.
  std::optional<int> wait_for_exit(std::chrono::milliseconds deadline);
  // True until the process has exited (a stopped process runs).
  bool running();
  // SIGKILL, then waits (deadline) until the process is gone; true if it is.
  bool kill(std::chrono::milliseconds deadline = std::chrono::seconds(10));
  // The wait status of the last run once it has exited.
  std::optional<int> exit_status() const { return exit_status_; }

  // Starts zkd again with the same zoo.cfg, data dir and port, once the
  // previous run has exited, and waits (start deadline) until it answers
  // srvr. Empty on success, else why not (with the new run's log); the
  // exit status of a run that ended during start-up is then exit_status().
  std::string restart();
  // restart() in two steps, for callers that time the start-up themselves:
  // respawn() starts zkd again and returns at once (empty, or why not);
  // wait_ready() waits until it answers srvr (empty, or why not).
  std::string respawn();
  std::string wait_ready(std::chrono::milliseconds deadline);

  // Where zkd writes stdout and stderr (all runs, appended).
  std::filesystem::path log_path() const { return dir_ / "zkd.log"; }
  // What zkd wrote to stdout and stderr so far (the current run only).
  std::string log() const;
  // The last `bytes` of log().
  std::string log_tail(size_t bytes = 4000) const;

 private:
  ZkdProcess() = default;

  std::vector<std::string> command_;  // argv of every run
  std::vector<std::string> environment_;
  std::filesystem::path dir_;
  bool owns_dir_ = false;
  bool keep_dir_ = false;
  std::chrono::milliseconds start_deadline_{15000};
  std::string host_ = "127.0.0.1";
  uint16_t port_ = 0;
  PortReservation port_hold_;  // holds a picked port between runs
  // The current (or last) run; its destructor SIGKILLs and reaps a running one.
  std::optional<zk::toolkit::ChildProcess> child_;
  pid_t pid_ = -1;
  uintmax_t log_start_ = 0;  // where the current run's output begins in zkd.log
  std::optional<int> exit_status_;
};

// A fresh directory <temp>/<prefix>_XXXXXX (mkdtemp); empty path on failure.
std::filesystem::path make_temp_dir(const std::string& prefix);

// Runs `binary` with exactly these arguments (argv[0] added), waits for it to
// exit and returns its wait status and output; for command-line tests. At the
// deadline the process is killed and status stays -1.
struct RunResult {
  int status = -1;
  std::string output;
};
RunResult run_zkd(const std::string& binary, const std::vector<std::string>& args,
                  std::chrono::milliseconds deadline);

}  // namespace zk::lab
