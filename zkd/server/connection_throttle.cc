// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/connection_throttle.h"

#include <algorithm>
#include <cmath>

namespace zkd::server {
namespace {

// The weights as Apache corrects them: a weight of 0 or less takes its
// default, and neither a new nor a resumed session weighs less than a local one.
ConnectionThrottle::Options corrected(ConnectionThrottle::Options o) {
  if (o.local_weight <= 0) o.local_weight = 1;
  if (o.global_weight <= 0) o.global_weight = 3;
  o.global_weight = std::max(o.global_weight, o.local_weight);
  if (o.renew_weight <= 0) o.renew_weight = 2;
  o.renew_weight = std::max(o.renew_weight, o.local_weight);
  return o;
}

}  // namespace

ConnectionThrottle::ConnectionThrottle(const Options& options, int64_t now_ms)
    : options_(corrected(options)),
      // Apache sizes the bucket in global sessions' weights when weights count.
      max_tokens_(int64_t{options_.max_tokens} *
                  (options_.weight_enabled ? options_.global_weight : 1)),
      fill_count_(int64_t{options_.fill_count} *
                  (options_.weight_enabled ? options_.global_weight : 1)),
      tokens_(max_tokens_),
      last_fill_ms_(now_ms),
      last_freeze_ms_(now_ms) {}

int32_t ConnectionThrottle::tokens_needed(int64_t session_id) const {
  if (!options_.weight_enabled) return 1;
  return session_id == 0 ? options_.global_weight : options_.renew_weight;
}

bool ConnectionThrottle::admit(int32_t need, int64_t now_ms, double draw) {
  if (max_tokens_ == 0) return true;
  const int64_t elapsed = now_ms - last_fill_ms_;
  if (elapsed > options_.fill_time_ms) {
    tokens_ = std::min(tokens_ + elapsed * fill_count_ / options_.fill_time_ms, max_tokens_);
    last_fill_ms_ = now_ms;
  }
  if (options_.freeze_time_ms != -1 && !passes_random_drop(now_ms, draw)) return false;
  if (tokens_ < need) return false;
  tokens_ -= need;
  return true;
}

bool ConnectionThrottle::passes_random_drop(int64_t now_ms, double draw) {
  const int64_t used = max_tokens_ - tokens_;
  const auto threshold = static_cast<int64_t>(std::llround(max_tokens_ * options_.decrease_ratio));
  if (now_ms - last_freeze_ms_ > options_.freeze_time_ms) {
    if (used == max_tokens_ && drop_ < 1) {
      drop_ = std::min(drop_ + options_.drop_increase, 1.0);
    } else if (used <= threshold && drop_ > 0) {
      drop_ = std::max(drop_ - options_.drop_decrease, 0.0);
    }
    last_freeze_ms_ = now_ms;
  }
  return !(draw < drop_);
}

}  // namespace zkd::server
