// SPDX-License-Identifier: Apache-2.0
// The session timeouts a lab's servers grant, read from a node's zoo.cfg as
// zkd reads them: tickTime, and minSessionTimeout / maxSessionTimeout
// defaulting (absent or -1) to 2 and 20 ticks.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>

namespace zk::lab::check {

struct SessionLimits {
  std::chrono::milliseconds tick{0};
  std::chrono::milliseconds min_timeout{0};
  std::chrono::milliseconds max_timeout{0};

  // The timeout a server grants to a request for `requested`.
  std::chrono::milliseconds clamp(std::chrono::milliseconds requested) const;
};

// Nothing when the file cannot be read or names no positive tickTime.
std::optional<SessionLimits> read_session_limits(const std::filesystem::path& zoo_cfg);

}  // namespace zk::lab::check
