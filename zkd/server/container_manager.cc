// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/container_manager.h"

#include <algorithm>

namespace zkd::server {

std::vector<std::string> ContainerManager::admit(std::vector<std::string> candidates,
                                                 int64_t now_ms) {
  constexpr int64_t kMinuteMs = 60000;
  while (!admitted_.empty() && admitted_.front().first <= now_ms - kMinuteMs) {
    admitted_in_window_ -= admitted_.front().second;
    admitted_.pop_front();
  }
  const int64_t room = std::max<int64_t>(0, max_per_minute_ - admitted_in_window_);
  if (static_cast<int64_t>(candidates.size()) > room) {
    candidates.resize(static_cast<size_t>(room));
  }
  if (!candidates.empty()) {
    admitted_.emplace_back(now_ms, static_cast<int64_t>(candidates.size()));
    admitted_in_window_ += static_cast<int64_t>(candidates.size());
  }
  return candidates;
}

}  // namespace zkd::server
