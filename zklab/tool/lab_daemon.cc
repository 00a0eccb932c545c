// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_daemon.h"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "toolkit/child_process.h"
#include "toolkit/poll_until.h"

namespace zk::lab {

namespace {

// Between two looks at /proc when no pidfd can be had: a poll interval, not a
// means of synchronisation (every wait has a deadline).
constexpr auto kPollInterval = std::chrono::milliseconds(20);
// How long spawn_daemon waits for the new process to show its command line.
constexpr auto kExecDeadline = std::chrono::seconds(2);

std::string read_proc(pid_t pid, const char* what) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + what, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `path` without "." and ".." components or a trailing separator: what its
// last component is.
std::filesystem::path last_component(const std::filesystem::path& path) {
  auto p = path.lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();
  return p.filename();
}

// Whether one of `pid`'s arguments (`cmdline`, NUL separated) names `marker`:
// as spelled, or, resolved against the process's working directory and with
// symbolic links followed, as the same file. The second is for daemons an
// older zklab started with the lab's path as the user typed it (relative, or
// through a link); only arguments ending in the marker's last component are
// resolved.
bool names_marker(pid_t pid, const std::string& cmdline, const std::filesystem::path& marker) {
  if (('\0' + cmdline).find('\0' + marker.string() + '\0') != std::string::npos) return true;
  std::error_code ec;
  const auto wanted = std::filesystem::weakly_canonical(std::filesystem::absolute(marker), ec);
  if (ec) return false;
  const auto name = last_component(wanted);
  std::optional<std::filesystem::path> cwd;
  for (size_t at = 0; at < cmdline.size();) {
    const size_t end = std::min(cmdline.find('\0', at), cmdline.size());
    std::filesystem::path arg = cmdline.substr(at, end - at);
    at = end + 1;
    if (arg.empty() || last_component(arg) != name) continue;
    if (arg.is_relative()) {
      if (!cwd) cwd = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/cwd", ec);
      if (cwd->empty()) continue;  // not ours to read, or gone
      arg = *cwd / arg;
    }
    if (std::filesystem::weakly_canonical(arg, ec) == wanted && !ec) return true;
  }
  return false;
}

}  // namespace

pid_t spawn_detached(const std::vector<std::string>& args, const std::filesystem::path& marker,
                     const std::filesystem::path& log,
                     const std::vector<std::string>& environment) {
  std::string error;
  auto child = toolkit::ChildProcess::start(
      {.argv = args, .environment = environment, .log = log, .new_session = true}, error);
  if (!child) return -1;
  // Return once /proc shows the new program (so that daemon_state() finds it),
  // or once it has exited already (then its log says why).
  toolkit::poll_until(
      [&] {
        return daemon_state(child->pid(), marker) != DaemonState::kGone ||
               child->poll_exit().has_value();
      },
      kExecDeadline, std::chrono::milliseconds(1));
  // It outlives this process, whose child it stays meanwhile: wait_daemon_gone
  // reaps it, init once this process has exited.
  return child->detach();
}

pid_t spawn_daemon(const std::string& binary, const std::filesystem::path& config,
                   const std::filesystem::path& log, const std::vector<std::string>& environment) {
  return spawn_detached({binary, "--config", config.string()}, config, log, environment);
}

DaemonState daemon_state(pid_t pid, const std::filesystem::path& marker) {
  if (pid <= 0) return DaemonState::kGone;
  // /proc/<pid>/stat: "pid (comm) S ...": the state follows the last ')'.
  const std::string stat = read_proc(pid, "stat");
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return DaemonState::kGone;
  const char state = stat[paren + 2];
  if (state == 'Z' || state == 'X') return DaemonState::kGone;
  // cmdline: the arguments, NUL separated; one of them is the marker.
  if (!names_marker(pid, read_proc(pid, "cmdline"), marker)) return DaemonState::kGone;
  return state == 'T' ? DaemonState::kStopped : DaemonState::kRunning;
}

bool wait_daemon_gone(pid_t pid, const std::filesystem::path& marker,
                      std::chrono::milliseconds deadline) {
  // Readable once the process has exited, its files closed (also for a
  // process that is not our child).
  const int pidfd = pid > 0 ? static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)) : -1;
  if (pidfd < 0) {
    // No such process any more, or no pidfd to be had: /proc decides.
    return toolkit::poll_until([&] { return daemon_state(pid, marker) == DaemonState::kGone; },
                               deadline, kPollInterval);
  }
  const std::string cmdline = read_proc(pid, "cmdline");
  bool gone = !cmdline.empty() && !names_marker(pid, cmdline, marker);  // another program
  if (!gone) {
    pollfd p{pidfd, POLLIN, 0};
    gone = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(deadline.count(), 1))) > 0;
    // A daemon this process started (spawn_detached) is still its child
    // until this process exits: reap it, or a long check collects a zombie
    // per fault. Another's process is not ours to reap (ECHILD).
    if (gone) (void)::waitpid(pid, nullptr, WNOHANG);
  }
  ::close(pidfd);
  return gone;
}

}  // namespace zk::lab
