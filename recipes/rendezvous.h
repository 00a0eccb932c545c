// SPDX-License-Identifier: Apache-2.0
// Rendezvous: the ZooKeeper paper's way for a process to pass information to
// processes it starts before it knows that information (section 2.4).
//
// A client creates a rendezvous node and passes its path to the processes it
// starts (e.g. on their command line). The one that knows the answer (the
// master: its address) fills the node; the others wait for it with a watch.
// A node is unfilled while its data version is 0: create_rendezvous creates it
// with empty data, fill_rendezvous writes at version 0, so only the first
// fill succeeds. The node is persistent; delete it when the rendezvous is over.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "recipes/retry.h"

namespace zk::recipes {

// Creates the unfilled node `path` (and its missing ancestors). Retries on
// connection loss; an existing unfilled node is success (a lost create found
// again). Errors: kNodeExists (the node exists and is filled), kSessionExpired,
// kConnectionLoss, kNoAuth.
Status create_rendezvous(SyncClient& zk, const std::string& path, const RetryPolicy& policy = {});

// Fills the node with `data`. Retries on connection loss; a node found filled
// with exactly `data` after a loss counts as this call's. Errors: kBadVersion
// (already filled by someone else), kNoNode, kSessionExpired, kConnectionLoss.
Status fill_rendezvous(SyncClient& zk, const std::string& path, const std::string& data,
                       const RetryPolicy& policy = {});

// Waits until the node is filled and returns its data. Blocks at most
// `timeout` (none: forever). Errors: kNoNode (no such node, or deleted while
// waiting), kOperationTimeout, kSessionExpired, kConnectionLoss.
Result<std::string> await_rendezvous(
    SyncClient& zk, const std::string& path,
    std::optional<std::chrono::milliseconds> timeout = std::nullopt,
    const RetryPolicy& policy = {});

}  // namespace zk::recipes
