// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/clock_skew.h"

#include <ctime>
#include <system_error>

namespace zk::lab::check {

namespace fs = std::filesystem;

fs::path faketime_library(std::string& error) {
  // Debian installs it under the multiarch directory, /usr/lib/<triplet>/faketime.
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator("/usr/lib", ec)) {
    const fs::path candidate = dir.path() / "faketime" / "libfaketimeMT.so.1";
    if (fs::exists(candidate, ec)) return candidate;
  }
  error = "skew needs libfaketime (apt-get install faketime)";
  return {};
}

std::vector<std::string> skewed_clock_environment(const fs::path& library, int64_t offset_s) {
  return {"LD_PRELOAD=" + library.string(),
          "FAKETIME=" + std::string(offset_s < 0 ? "-" : "+") +
              std::to_string(offset_s < 0 ? -offset_s : offset_s),
          "FAKETIME_DONT_FAKE_MONOTONIC=1"};
}

std::optional<int64_t> log_line_time_s(std::string_view line) {
  if (line.size() < 19 || line[4] != '-' || line[10] != 'T') return std::nullopt;
  std::tm tm{};
  const std::string stamp(line.substr(0, 19));
  const char* end = ::strptime(stamp.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(::timegm(&tm));
}

}  // namespace zk::lab::check
