// SPDX-License-Identifier: Apache-2.0
// One line per event on stderr, with a UTC timestamp and a level:
//   2024-11-21T14:22:12.123Z INFO  session 0x100000000000000 created
// Used by zkd's network and server layers (set_log_sink() below redirects
// them). Thread-safe: each line is built
// first and written with a single write(2), so lines never interleave.
// The timestamp is read from the Clock set_log_clock() installs (main: the
// server's Env's), never from the system's clocks directly.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "zkd/clock/clock.h"

namespace zkd::net {

enum class LogLevel { kInfo, kWarn, kError };

void write_log_line(LogLevel level, std::string_view message);

// The clock whose wall_ms() stamps each line; until one is installed, the
// real one (real_clock(), zkd/clock/real_time.h). `clock` must outlive every
// line logged after. Set it while no other thread logs, as the sink.
void set_log_clock(Clock& clock);

// Where lines go instead of stderr (nullptr: stderr again): the simulator
// keeps the replicas' lines in its trace. Set it while no other thread logs.
using LogSink = void (*)(LogLevel level, std::string_view message);
void set_log_sink(LogSink sink);

template <typename... Parts>
void log_event(LogLevel level, const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  write_log_line(level, out.str());
}

template <typename... Parts>
void log_info(const Parts&... parts) {
  log_event(LogLevel::kInfo, parts...);
}
template <typename... Parts>
void log_warn(const Parts&... parts) {
  log_event(LogLevel::kWarn, parts...);
}
template <typename... Parts>
void log_error(const Parts&... parts) {
  log_event(LogLevel::kError, parts...);
}

// "0x1a2b": session ids and zxids the way Apache prints them (Long.toHexString).
std::string hex(int64_t value);

}  // namespace zkd::net
