// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/check_session_limits.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>

namespace zk::lab::check {

namespace {

// The integer value of `key=...` on `line` (without blanks), if that is its key.
std::optional<long> value_of(const std::string& line, const std::string& key) {
  if (line.compare(0, key.size() + 1, key + "=") != 0) return std::nullopt;
  try {
    return std::stol(line.substr(key.size() + 1));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::chrono::milliseconds SessionLimits::clamp(std::chrono::milliseconds requested) const {
  return std::clamp(requested, min_timeout, std::max(min_timeout, max_timeout));
}

std::optional<SessionLimits> read_session_limits(const std::filesystem::path& zoo_cfg) {
  std::ifstream in(zoo_cfg);
  if (!in) return std::nullopt;
  long tick = 0, min = -1, max = -1;
  std::string line;
  while (std::getline(in, line)) {
    std::erase_if(line, [](unsigned char c) { return std::isspace(c) != 0; });
    if (auto v = value_of(line, "tickTime")) tick = *v;
    if (auto v = value_of(line, "minSessionTimeout")) min = *v;
    if (auto v = value_of(line, "maxSessionTimeout")) max = *v;
  }
  if (tick <= 0) return std::nullopt;
  SessionLimits limits;
  limits.tick = std::chrono::milliseconds(tick);
  limits.min_timeout = std::chrono::milliseconds(min == -1 ? 2 * tick : min);
  limits.max_timeout = std::chrono::milliseconds(max == -1 ? 20 * tick : max);
  return limits;
}

}  // namespace zk::lab::check
