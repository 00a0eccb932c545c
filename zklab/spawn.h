// SPDX-License-Identifier: Apache-2.0
// Starting a child process whose output goes to a log file: the one
// posix_spawn wrapper of zk::lab (ZkdProcess, Ensemble and the zklab tool's
// detached daemons all start processes through it).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace zk::lab {

// Starts args[0] (a path) with `args`, stdin from /dev/null, stdout and stderr
// appended to `log`. With `new_session` the child leads a session of its own
// (setsid), so it outlives its parent's terminal and process group. The
// child's environment is this process's with `environment` (NAME=VALUE
// settings) added, each replacing a variable of the same name. The child's
// pid, or -1 when it could not be started.
pid_t spawn_logged(const std::vector<std::string>& args, const std::filesystem::path& log,
                   bool new_session = false, const std::vector<std::string>& environment = {});

}  // namespace zk::lab
