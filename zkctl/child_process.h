// SPDX-License-Identifier: Apache-2.0
// ChildProcess: the command a supervising verb (lock, elect) runs: started
// with the parent's environment plus some variables, signalled, reaped
// without blocking.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace zkctl {

class ChildProcess {
 public:
  // Starts `argv` (argv[0] looked up in PATH) with stdin, stdout and stderr
  // inherited and `env` added to (or replacing in) the environment. Nothing
  // when it could not be started (errno-style reason in `error`).
  static std::optional<ChildProcess> start(
      const std::vector<std::string>& argv,
      const std::vector<std::pair<std::string, std::string>>& env, std::string& error);

  pid_t pid() const { return pid_; }
  // Sends `signal_number`; ignored once the child has been reaped.
  void signal(int signal_number);
  // The child's wait status once it has exited (reaps it); nothing while it runs.
  std::optional<int> poll_exit();
  // The exit code a shell would report for `wait_status`: the exit status,
  // or 128 + the signal that ended it.
  static int shell_code(int wait_status);

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
  std::optional<int> status_;
};

}  // namespace zkctl
