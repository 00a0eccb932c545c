// SPDX-License-Identifier: Apache-2.0
// A log line's shape, stamped by the clock installed with set_log_clock().
#include "zkd/log/log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/common/temp_dir.h"
#include "zkd/clock/real_time.h"

namespace zkd::net {
namespace {

class FixedClock final : public Clock {
 public:
  explicit FixedClock(int64_t wall_ms) : wall_ms_(wall_ms) {}
  int64_t wall_ms() override { return wall_ms_; }
  int64_t steady_us() override { return 0; }

 private:
  int64_t wall_ms_;
};

// What write_log_line() writes to stderr for one line.
std::string stderr_of(LogLevel level, std::string_view message) {
  zk::test::TempDir dir("zkd-log");
  const std::string path = dir.at("stderr");
  std::fflush(stderr);
  const int saved = ::dup(STDERR_FILENO);
  std::FILE* file = std::fopen(path.c_str(), "w");
  ::dup2(::fileno(file), STDERR_FILENO);
  write_log_line(level, message);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::fclose(file);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Log, ALineIsStampedByTheInstalledClock) {
  FixedClock clock(1'700'000'000'123);  // 2023-11-14T22:13:20.123Z
  set_log_clock(clock);
  const std::string line = stderr_of(LogLevel::kWarn, "session 0x1 expired");
  set_log_clock(real_clock());
  EXPECT_EQ(line, "2023-11-14T22:13:20.123Z WARN  session 0x1 expired\n");
}

}  // namespace
}  // namespace zkd::net
