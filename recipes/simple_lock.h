// SPDX-License-Identifier: Apache-2.0
// SimpleLock: the ZooKeeper paper's first lock. The holder owns the
// ephemeral node PATH itself (fixed name); everyone else watches PATH with
// exists and tries again when it goes. Every release wakes every waiter (the
// herd effect, by design: Lock in lock.h avoids it); there is no fairness.
//
// Layout: PATH, an ephemeral node whose data is LockOptions::data; the
// parent of PATH is created (with ancestors) as persistent nodes if missing.
// Not Curator's layout (Curator has no such lock).
//
// Connection loss: a create lost in flight is resolved by reading PATH: when
// it exists and its ephemeralOwner is this session, the earlier create won
// and the lock is held; never a second node. Session expiry while waiting
// fails the acquire; while holding, the hold reports the loss (lock_hold.h).
// Fencing token: the czxid of PATH as this holder created it (sequence -1).
//
// Threading: as Lock.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "recipes/lock_hold.h"
#include "recipes/lock_options.h"

namespace zk::recipes {

class SimpleLock : public LockRecipe {
 public:
  // `zk` must be connected and outlive the SimpleLock and its holds.
  SimpleLock(SyncClient& zk, std::string path, LockOptions options = {});

  // Blocks until PATH is ours, or `timeout` passes (none: forever; zero: try
  // once). Errors: kOperationTimeout, kSessionExpired, kClosing,
  // kConnectionLoss (retries ran out), kNoChildrenForEphemerals (the parent
  // is ephemeral), and those of create.
  Result<LockHold> acquire(std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  // wakeups() (LockRecipe) counts the acquires' wake-ups because PATH changed.
};

}  // namespace zk::recipes
