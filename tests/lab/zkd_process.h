// A real zkd process for tests: writes a zoo.cfg into a fresh temporary
// directory, picks a free loopback port, starts the zkd binary (built by this
// tree; its path is compiled in), and waits, with a deadline, until it answers
// `srvr`. The destructor kills the process if it still runs, reaps it and
// removes the directory, whatever happened in between. A stopped or killed
// zkd can be started again on the same data dir and port (restart()).
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

namespace zk::lab {

struct ZkdOptions {
  int tick_time_ms = 2000;
  std::optional<int> min_session_timeout_ms;
  std::optional<int> max_session_timeout_ms;
  int max_client_cnxns = 60;
  std::string four_letter_whitelist = "*";
  std::vector<std::string> extra_lines;  // appended to zoo.cfg verbatim
  // When set, written as zoo.cfg instead of the generated text ({port} and
  // {dataDir} are replaced); the process is then not required to come up.
  std::optional<std::string> raw_config;
  std::chrono::milliseconds start_deadline{15000};
};

class ZkdProcess;

struct StartResult {
  std::unique_ptr<ZkdProcess> process;  // set when zkd answered srvr in time
  std::string error;                    // otherwise: why, with zkd's log
};

class ZkdProcess {
 public:
  static StartResult start(const ZkdOptions& options = {});

  ~ZkdProcess();
  ZkdProcess(const ZkdProcess&) = delete;
  ZkdProcess& operator=(const ZkdProcess&) = delete;

  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }
  std::string address() const { return host_ + ":" + std::to_string(port_); }
  const std::filesystem::path& directory() const { return dir_; }
  // dataDir of the generated zoo.cfg (its version-2/ holds logs and snapshots).
  std::filesystem::path data_dir() const { return dir_ / "data"; }

  // Sends a signal (SIGTERM, SIGKILL, ...); false if the process is gone.
  bool signal(int signal_number);
  // Waits for the process to exit; its wait status, or nothing at the deadline.
  std::optional<int> wait_for_exit(std::chrono::milliseconds deadline);
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
  // What zkd wrote to stdout and stderr so far (the current run only).
  std::string log() const;

 private:
  ZkdProcess() = default;
  // Spawns zkd on the zoo.cfg and waits until it serves; empty or why not.
  std::string launch();
  std::filesystem::path log_path() const;

  std::filesystem::path dir_;
  std::chrono::milliseconds start_deadline_{15000};
  int runs_ = 0;
  std::string host_ = "127.0.0.1";
  uint16_t port_ = 0;
  pid_t pid_ = -1;
  int pidfd_ = -1;  // readable once the process has exited
  std::optional<int> exit_status_;
};

// A free loopback TCP port: bind port 0, read it, close.
uint16_t pick_free_port();

// Runs zkd with exactly these arguments (argv[0] added), waits for it to exit
// and returns its wait status and output; for command-line tests.
struct RunResult {
  int status = -1;
  std::string output;
};
RunResult run_zkd(const std::vector<std::string>& args, std::chrono::milliseconds deadline);

// Path of the zkd binary under test.
std::string zkd_binary();

}  // namespace zk::lab
