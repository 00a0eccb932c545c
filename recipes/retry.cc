// SPDX-License-Identifier: Apache-2.0
#include "recipes/retry.h"

#include <algorithm>
#include <thread>

namespace zk::recipes {

bool backoff(SyncClient& zk, const RetryPolicy& policy, std::chrono::steady_clock::time_point start,
             int attempt_number) {
  using std::chrono::milliseconds;
  milliseconds budget = policy.budget.count() > 0 ? policy.budget : zk.negotiated_timeout();
  if (budget.count() <= 0) budget = milliseconds(10'000);
  auto state = zk.state();
  using zk::client::SessionState;
  if (state == SessionState::kExpired || state == SessionState::kClosed ||
      state == SessionState::kAuthFailed) {
    return false;
  }
  milliseconds pause = policy.initial_backoff;
  for (int i = 0; i < attempt_number && pause < policy.max_backoff; ++i) pause *= 2;
  pause = std::min(pause, policy.max_backoff);
  auto elapsed = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
  if (elapsed + pause > budget) return false;
  // A pause between attempts, not synchronisation: the client reconnects on
  // its own thread meanwhile.
  std::this_thread::sleep_for(pause);
  return true;
}

}  // namespace zk::recipes
