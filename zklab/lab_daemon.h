// zkd daemons of a lab: processes that outlive the zklab command that started
// them (their own session, stdin from /dev/null, output appended to a log).
// A later zklab process knows them only by pid, so every query also checks
// that the pid still runs zkd on the node's zoo.cfg (a pid may be reused).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>

namespace zk::lab {

// Starts `binary --config <config>` in a new session (setsid) with stdout and
// stderr appended to `log`; its pid, or -1 when it cannot be started.
pid_t spawn_daemon(const std::string& binary, const std::filesystem::path& config,
                   const std::filesystem::path& log);

enum class DaemonState {
  kGone,     // no such process, a zombie, or another program on that pid
  kRunning,  // runs (or sleeps)
  kStopped,  // stopped by SIGSTOP (paused)
};

// What `pid` is now, where only a process whose command line names `config`
// counts as the node's.
DaemonState daemon_state(pid_t pid, const std::filesystem::path& config);

// Waits until daemon_state(pid, config) is kGone; false at the deadline.
bool wait_daemon_gone(pid_t pid, const std::filesystem::path& config,
                      std::chrono::milliseconds deadline);

}  // namespace zk::lab
