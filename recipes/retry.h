// SPDX-License-Identifier: Apache-2.0
// Connection-loss handling shared by the recipes.
//
// A request that fails with kConnectionLoss may or may not have been applied;
// the session (and its ephemeral nodes and watches) survives as long as the
// client reconnects within the session timeout. The recipes retry idempotent
// steps on connection loss with a bounded backoff, and give up when the
// session expires (kSessionExpired) or is closed, or when the budget runs out.
#pragma once

#include <chrono>
#include <functional>

#include "libzk/client/result.h"
#include "libzk/client/sync_client.h"

namespace zk::recipes {

using zk::client::Error;
using zk::client::Result;
using zk::client::Status;
using zk::client::SyncClient;

// How long a recipe keeps retrying a step that fails with kConnectionLoss.
struct RetryPolicy {
  // Total time spent retrying one step; zero means the session's negotiated
  // timeout (after which the session is most likely expired anyway).
  std::chrono::milliseconds budget{0};
  // First pause between attempts; doubled each time up to max_backoff.
  std::chrono::milliseconds initial_backoff{10};
  std::chrono::milliseconds max_backoff{500};
};

// True for the errors after which a retry can succeed.
inline bool is_retryable(Error e) { return e == Error::kConnectionLoss; }

// Runs `attempt` until it returns anything but a retryable error or the
// policy's budget is spent; returns the last result. `attempt` must be safe to
// repeat (idempotent, or able to detect its own earlier success).
template <typename T>
Result<T> with_retries(SyncClient& zk, const RetryPolicy& policy,
                       const std::function<Result<T>()>& attempt);

// Waits between attempts; false once the budget that started at `start` is
// spent. Exposed for recipes that retry a loop of several requests.
bool backoff(SyncClient& zk, const RetryPolicy& policy, std::chrono::steady_clock::time_point start,
             int attempt_number);

template <typename T>
Result<T> with_retries(SyncClient& zk, const RetryPolicy& policy,
                       const std::function<Result<T>()>& attempt) {
  const auto start = std::chrono::steady_clock::now();
  for (int n = 0;; ++n) {
    Result<T> r = attempt();
    if (r.ok() || !is_retryable(r.error())) return r;
    if (!backoff(zk, policy, start, n)) return r;
  }
}

}  // namespace zk::recipes
