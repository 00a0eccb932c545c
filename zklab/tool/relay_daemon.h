// SPDX-License-Identifier: Apache-2.0
// The relay daemon of a lab (`zklab relay-daemon <lab>`, run_relay_daemon()
// in lab_network.h): one process per lab, started by `zklab up` before the
// nodes and stopped by `zklab down`, that runs the lab's Relay (relay.h) on
// the links of relay.links (relay_links.h) and serves its control protocol
// (relay_control.h). Its files in the lab directory:
//   relay.pid   its pid (a pid counts only while it runs `relay-daemon <lab>`)
//   relay.port  its control port, written once it listens, removed at exit
//   relay.log   its output, appended: start, every change of faults, exit
// A daemon starts with no faults; faults do not outlive it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace zk::lab {

// The lab directory as its daemon is started with and found by: the lab's
// one spelling, lab_directory() (lab_state.h).
std::filesystem::path relay_lab_dir(const std::filesystem::path& dir);

std::filesystem::path relay_pid_path(const std::filesystem::path& lab_dir);
std::filesystem::path relay_port_path(const std::filesystem::path& lab_dir);
std::filesystem::path relay_log_path(const std::filesystem::path& lab_dir);

enum class RelayDaemonState {
  kNone,     // the lab has no relay.links (written before zklab had relays)
  kDown,     // no daemon runs
  kRunning,  // runs (it may still be starting)
};
RelayDaemonState relay_daemon_state(const std::filesystem::path& dir);
// The pid of the lab's daemon while it runs.
std::optional<pid_t> relay_daemon_pid(const std::filesystem::path& dir);

// Starts the daemon of the lab in `dir` with zklab's own executable (a stale
// daemon of the lab is stopped first) and waits until it answers on its
// control port. Empty on success or when the lab has no relays, else why not
// (then no daemon runs).
std::string start_relay_daemon(const std::filesystem::path& dir,
                               std::chrono::milliseconds deadline);

// Stops the lab's daemon if it runs: SIGTERM, SIGKILL at the deadline. Empty
// when none runs any more (`stopped`: the pid it had, if one ran), else why.
std::string stop_relay_daemon(const std::filesystem::path& dir, std::chrono::milliseconds deadline,
                              std::optional<pid_t>& stopped);

// The control port of the running daemon; nothing, with `error` saying why
// (no relays, not running, no port yet), otherwise.
std::optional<uint16_t> relay_control_port(const std::filesystem::path& dir, std::string& error);

}  // namespace zk::lab
