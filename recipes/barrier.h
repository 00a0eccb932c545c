// SPDX-License-Identifier: Apache-2.0
// Barriers (the ZooKeeper paper, section 2.4, and the ZooKeeper recipes).
//
// Simple barrier: a node that holds processes back while it exists. A
// coordinator sets it; processes wait until it is gone; the coordinator
// removes it and every waiter is released by the same delete (one watch
// notification each). Curator's DistributedBarrier uses the same layout (one
// node, present = closed).
//
// Double barrier: see double_barrier.h.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "recipes/retry.h"

namespace zk::recipes {

// Closes the barrier: creates `path` (and its missing ancestors) as a
// persistent node; an existing node is success. Retries on connection loss.
Status set_barrier(SyncClient& zk, const std::string& path, const RetryPolicy& policy = {});

// Opens the barrier: deletes `path`; a missing node is success.
Status remove_barrier(SyncClient& zk, const std::string& path, const RetryPolicy& policy = {});

// Blocks until `path` does not exist, at most `timeout` (none: forever).
// Errors: kOperationTimeout, kSessionExpired, kConnectionLoss.
Status wait_on_barrier(SyncClient& zk, const std::string& path,
                       std::optional<std::chrono::milliseconds> timeout = std::nullopt,
                       const RetryPolicy& policy = {});

}  // namespace zk::recipes
