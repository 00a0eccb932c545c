// SPDX-License-Identifier: Apache-2.0
// The daemons of a lab (its zkd nodes and its relay daemon): processes that
// outlive the zklab command that started them (their own session, stdin from
// /dev/null, output appended to a log). A later zklab process knows them only
// by pid, so every query also checks that the pid still runs with the
// daemon's marker among its arguments (a node's zoo.cfg path, the relay
// daemon's lab directory): a pid may be reused.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace zk::lab {

// Starts `args` (args[0] a path) in a new session (setsid) with stdout and
// stderr appended to `log`, `environment` (NAME=VALUE) added to its
// environment; its pid, or -1 when it cannot be started. Returns
// once /proc shows the new program (daemon_state(pid, marker) finds it: one of
// `args` must be `marker`), or once it exited already (its log says why), or
// after a short deadline.
pid_t spawn_detached(const std::vector<std::string>& args, const std::filesystem::path& marker,
                     const std::filesystem::path& log,
                     const std::vector<std::string>& environment = {});

// spawn_detached of `binary --config <config>`, with `config` as its marker.
pid_t spawn_daemon(const std::string& binary, const std::filesystem::path& config,
                   const std::filesystem::path& log,
                   const std::vector<std::string>& environment = {});

enum class DaemonState {
  kGone,     // no such process, a zombie, or another program on that pid
  kRunning,  // runs (or sleeps)
  kStopped,  // stopped by SIGSTOP (paused)
};

// What `pid` is now, where only a process with `marker` as one of its
// arguments counts as the daemon: spelled so, or naming the same file from the
// process's working directory (a daemon an older zklab started with a relative
// or linked lab path).
DaemonState daemon_state(pid_t pid, const std::filesystem::path& marker);

// Waits until the daemon on `pid` has exited, its files (its locks) closed;
// false at the deadline. Another program on that pid is not waited for. Not
// daemon_state() alone: an exiting process's command line reads empty before
// its files are closed, and a daemon started on the same data in that window
// finds the lock still held.
bool wait_daemon_gone(pid_t pid, const std::filesystem::path& marker,
                      std::chrono::milliseconds deadline);

}  // namespace zk::lab
