// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/read_only_mode.h"

#include <algorithm>

namespace zkd::server {

namespace {
constexpr int64_t kLeastGraceMs = 2000;  // Apache's lower bound
}  // namespace

ReadOnlyMode::ReadOnlyMode(bool enabled, int64_t tick_time_ms)
    : enabled_(enabled), grace_ms_(std::max(kLeastGraceMs, tick_time_ms)) {}

void ReadOnlyMode::quorum_lost(int64_t now_ms) {
  if (!lost_at_ms_) lost_at_ms_ = now_ms;
}

void ReadOnlyMode::quorum_back() {
  lost_at_ms_.reset();
  active_ = false;
}

bool ReadOnlyMode::tick(int64_t now_ms) {
  if (!enabled_ || active_ || !lost_at_ms_ || now_ms - *lost_at_ms_ < grace_ms_) return false;
  active_ = true;
  return true;
}

}  // namespace zkd::server
