// SPDX-License-Identifier: Apache-2.0
// The herd-free queue under a lock path that the mutex, the read/write lock
// and the leader election share (the paper's "locks without herd effect"):
// each candidate creates an ephemeral sequential child, protected as Curator
// does ("_c_<uuid>-<name><seq>", protected_create.h); the children in
// sequence order are the queue; a candidate holds when nothing before it
// blocks it, and otherwise watches exactly one blocking node (getData with a
// watch, as Curator does: no watch is left behind when the node is already
// gone) and looks again when that node changes or goes. Not a public header.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "recipes/lock_hold.h"
#include "recipes/lock_options.h"
#include "recipes/retry.h"

namespace zk::recipes::detail {

struct QueueEntry {
  std::string name;  // child name
  int64_t sequence = 0;
};

// Which entry the candidate at `index` (of `queue`, in sequence order) waits
// for; nothing when it holds.
using BlockerRule =
    std::function<std::optional<size_t>(const std::vector<QueueEntry>& queue, size_t index)>;

// One candidate's acquire.
struct QueueRequest {
  std::string dir;                                   // the lock path
  std::string name;                                  // "lock-", "__READ__", "__WRIT__", "latch-"
  const LockOptions& options;                        // data, retry, on_lost, on_wait
  BlockerRule blocker;                               // required
  std::optional<std::chrono::milliseconds> timeout;  // none: wait forever
  std::atomic<int64_t>* wakeups = nullptr;           // counts looks after the first; may be null
};

// Queues and waits (see lock.h for the contract the public recipes state).
// Errors: kOperationTimeout (the candidate's node is deleted again),
// kSessionExpired, kClosing (session closed), kNoNode when the candidate's
// node vanished while waiting (deleted by someone else), kConnectionLoss when
// the retries run out (the node is deleted if the connection allows).
Result<LockHold> acquire_queued(SyncClient& zk, const QueueRequest& request);

// The children of `dir` that carry a sequence suffix, in sequence order.
// Errors: those of getChildren (kNoNode when `dir` is missing).
Result<std::vector<QueueEntry>> read_queue(SyncClient& zk, const std::string& dir,
                                           const RetryPolicy& retry);

// The mutex rule: everyone before me blocks; I wait for my predecessor.
std::optional<size_t> predecessor_blocks(const std::vector<QueueEntry>& queue, size_t index);

}  // namespace zk::recipes::detail
