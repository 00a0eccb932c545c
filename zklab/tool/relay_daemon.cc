// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/relay_daemon.h"

#include <signal.h>

#include <fstream>

#include "toolkit/poll_until.h"
#include "zklab/relay/relay_control.h"
#include "zklab/relay/relay_links.h"
#include "zklab/tool/lab_daemon.h"
#include "zklab/tool/lab_state.h"

namespace zk::lab {

namespace {

// Between two looks for the control port of a starting daemon (the wait has a
// deadline).
constexpr auto kPollInterval = std::chrono::milliseconds(10);
// How long one control request may take while waiting for a starting daemon.
constexpr auto kProbeDeadline = std::chrono::milliseconds(1000);

std::optional<long> read_number(const std::filesystem::path& file) {
  std::ifstream in(file);
  long value = 0;
  if (!(in >> value) || value <= 0) return std::nullopt;
  return value;
}

// The pid of the lab's daemon if it runs.
std::optional<pid_t> running_pid(const std::filesystem::path& dir) {
  auto pid = read_number(relay_pid_path(dir));
  if (!pid || daemon_state(static_cast<pid_t>(*pid), dir) == DaemonState::kGone) {
    return std::nullopt;
  }
  return static_cast<pid_t>(*pid);
}

}  // namespace

std::filesystem::path relay_lab_dir(const std::filesystem::path& dir) { return lab_directory(dir); }

std::filesystem::path relay_pid_path(const std::filesystem::path& lab_dir) {
  return lab_dir / "relay.pid";
}
std::filesystem::path relay_port_path(const std::filesystem::path& lab_dir) {
  return lab_dir / "relay.port";
}
std::filesystem::path relay_log_path(const std::filesystem::path& lab_dir) {
  return lab_dir / "relay.log";
}

RelayDaemonState relay_daemon_state(const std::filesystem::path& dir_in) {
  const auto dir = relay_lab_dir(dir_in);
  if (!std::filesystem::exists(relay_links_path(dir))) return RelayDaemonState::kNone;
  return running_pid(dir) ? RelayDaemonState::kRunning : RelayDaemonState::kDown;
}

std::optional<pid_t> relay_daemon_pid(const std::filesystem::path& dir) {
  return running_pid(relay_lab_dir(dir));
}

std::string start_relay_daemon(const std::filesystem::path& dir_in,
                               std::chrono::milliseconds deadline) {
  const auto dir = relay_lab_dir(dir_in);
  std::string error;
  if (!read_relay_links(dir, error)) return error;  // empty: a lab without relays
  std::optional<pid_t> stale;
  if (error = stop_relay_daemon(dir, deadline, stale); !error.empty()) return error;
  std::error_code ec;
  std::filesystem::remove(relay_port_path(dir), ec);
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "cannot find zklab's own executable: " + ec.message();
  const pid_t pid =
      spawn_detached({self.string(), "relay-daemon", dir.string()}, dir, relay_log_path(dir));
  if (pid < 0) return "cannot start " + self.string() + " relay-daemon";
  {
    std::ofstream out(relay_pid_path(dir), std::ios::trunc);
    out << pid << "\n";
    if (!out.flush()) return "cannot write " + relay_pid_path(dir).string();
  }
  bool exited = false;
  const bool done = toolkit::poll_until(
      [&] {
        exited = daemon_state(pid, dir) == DaemonState::kGone;
        if (exited) return true;
        const auto port = read_number(relay_port_path(dir));
        return port && *port <= 65535 &&
               control_get(static_cast<uint16_t>(*port), kProbeDeadline, error).has_value();
      },
      deadline, kPollInterval);
  if (exited) return "the relay daemon exited (see " + relay_log_path(dir).string() + ")";
  if (done) return {};
  ::kill(pid, SIGKILL);
  return "the relay daemon (pid " + std::to_string(pid) + ") did not answer in time (see " +
         relay_log_path(dir).string() + ")";
}

std::string stop_relay_daemon(const std::filesystem::path& dir_in,
                              std::chrono::milliseconds deadline, std::optional<pid_t>& stopped) {
  const auto dir = relay_lab_dir(dir_in);
  stopped = running_pid(dir);
  if (!stopped) return {};
  ::kill(*stopped, SIGTERM);
  ::kill(*stopped, SIGCONT);
  if (wait_daemon_gone(*stopped, dir, deadline)) return {};
  ::kill(*stopped, SIGKILL);
  if (wait_daemon_gone(*stopped, dir, deadline)) return {};
  return "the relay daemon (pid " + std::to_string(*stopped) + ") did not exit";
}

std::optional<uint16_t> relay_control_port(const std::filesystem::path& dir_in,
                                           std::string& error) {
  const auto dir = relay_lab_dir(dir_in);
  switch (relay_daemon_state(dir)) {
    case RelayDaemonState::kNone:
      error = "the lab in " + dir.string() +
              " has no relays, so no network faults (it was written by `zklab up --direct`, or "
              "before zklab had relays; `zklab down --wipe` then `zklab up` writes one with them)";
      return std::nullopt;
    case RelayDaemonState::kDown:
      error = "the relay daemon of the lab in " + dir.string() +
              " is not running (is the lab up? `zklab up` starts it)";
      return std::nullopt;
    case RelayDaemonState::kRunning:
      break;
  }
  auto port = read_number(relay_port_path(dir));
  if (!port || *port > 65535) {
    error = "the relay daemon has not written " + relay_port_path(dir).string() + " (yet)";
    return std::nullopt;
  }
  return static_cast<uint16_t>(*port);
}

}  // namespace zk::lab
