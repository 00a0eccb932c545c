// SPDX-License-Identifier: Apache-2.0
// The skew nemesis's pieces (check_nemesis.h): a zkd started with its wall
// clock shifted, without root, by libfaketime (Debian's `faketime`
// package), which the dynamic loader puts in front of the C library's clock
// calls. Only the wall clock moves: the monotonic clock, which zkd's
// timeouts and session expiry run on, stays true.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zk::lab::check {

// The thread-safe libfaketime of this machine, or empty with `error` saying
// what to install.
std::filesystem::path faketime_library(std::string& error);

// What to add to a process's environment so that its wall clock runs
// `offset_s` seconds ahead (negative: behind) of the machine's.
std::vector<std::string> skewed_clock_environment(const std::filesystem::path& library,
                                                  int64_t offset_s);

// The wall-clock time, in seconds since the epoch, that a zkd log line
// starts with ("2026-11-27T02:23:44.499Z INFO ..."), or nothing.
std::optional<int64_t> log_line_time_s(std::string_view line);

}  // namespace zk::lab::check
