// SPDX-License-Identifier: Apache-2.0
#include "zklab/spawn.h"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <string_view>

extern char** environ;

namespace zk::lab {

namespace {

// The name of a NAME=VALUE setting, with its '='.
std::string_view name_of(std::string_view setting) {
  return setting.substr(0, setting.find('=') + 1);
}

}  // namespace

pid_t spawn_logged(const std::vector<std::string>& args, const std::filesystem::path& log,
                   bool new_session, const std::vector<std::string>& environment) {
  if (args.empty()) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (new_session) posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    const auto replaced = [e](const std::string& s) { return name_of(s) == name_of(*e); };
    if (std::none_of(environment.begin(), environment.end(), replaced)) envp.push_back(*e);
  }
  for (const auto& s : environment) envp.push_back(const_cast<char*>(s.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

}  // namespace zk::lab
