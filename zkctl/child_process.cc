// SPDX-License-Identifier: Apache-2.0
#include "zkctl/child_process.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstring>
#include <map>

extern char** environ;

namespace zkctl {

std::optional<ChildProcess> ChildProcess::start(
    const std::vector<std::string>& argv,
    const std::vector<std::pair<std::string, std::string>>& env, std::string& error) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq != nullptr) merged[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
  }
  for (const auto& [name, value] : env) merged[name] = value;
  std::vector<std::string> env_text;
  for (const auto& [name, value] : merged) env_text.push_back(name + "=" + value);

  std::vector<char*> c_argv, c_env;
  for (const auto& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  for (const auto& e : env_text) c_env.push_back(const_cast<char*>(e.c_str()));
  c_env.push_back(nullptr);

  // The child starts with no signals blocked and default dispositions for the
  // ones the parent handles (exec resets handled signals).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, c_argv[0], nullptr, &attr, c_argv.data(), c_env.data());
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    error = std::strerror(rc);
    return std::nullopt;
  }
  return ChildProcess(pid);
}

void ChildProcess::signal(int signal_number) {
  if (!status_) kill(pid_, signal_number);
}

std::optional<int> ChildProcess::poll_exit() {
  if (status_) return status_;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) status_ = status;
  return status_;
}

int ChildProcess::shell_code(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

}  // namespace zkctl
