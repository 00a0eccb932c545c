// SPDX-License-Identifier: Apache-2.0
#include "zkd/log/log.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <string>

#include "zkd/clock/real_time.h"

namespace zkd::net {
namespace {

// Null until set_log_clock(): the real clock (constant-initialised, so a line
// logged during static initialisation is stamped too).
Clock* log_clock = nullptr;

std::string_view level_name(LogLevel level) {
  switch (level) {
    case LogLevel::kInfo:
      return "INFO ";
    case LogLevel::kWarn:
      return "WARN ";
    case LogLevel::kError:
      return "ERROR";
  }
  return "?    ";
}

std::string timestamp() {
  const int64_t ms = (log_clock != nullptr ? *log_clock : real_clock()).wall_ms();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms % 1000));
  return buf;
}

LogSink sink = nullptr;

}  // namespace

void set_log_sink(LogSink new_sink) { sink = new_sink; }

void set_log_clock(Clock& clock) { log_clock = &clock; }

void write_log_line(LogLevel level, std::string_view message) {
  if (sink != nullptr) {
    sink(level, message);
    return;
  }
  std::string line = timestamp();
  line += ' ';
  line += level_name(level);
  line += ' ';
  line += message;
  line += '\n';
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n <= 0) return;  // stderr is gone: nowhere left to report it
    p += n;
    left -= static_cast<size_t>(n);
  }
}

std::string hex(int64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx",
                static_cast<unsigned long long>(static_cast<uint64_t>(value)));
  return buf;
}

}  // namespace zkd::net
