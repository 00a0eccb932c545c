// SPDX-License-Identifier: Apache-2.0
// Figures about a running process, read from /proc (Linux).
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace zk::lab {

// VmRSS of process `pid` in KiB, from /proc/<pid>/status; -1 when unreadable
// (no such process, or not Linux).
int64_t resident_kib(pid_t pid);

}  // namespace zk::lab
