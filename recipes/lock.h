// SPDX-License-Identifier: Apache-2.0
// Lock: a mutual-exclusion lock without herd effect (the ZooKeeper paper's
// second lock), in the node layout of Curator's InterProcessMutex, so that
// Curator clients and these recipes contend on the same lock.
//
// Layout: under the lock path PATH (created, with missing ancestors, as
// persistent nodes), each acquire creates an ephemeral sequential node
//   PATH/_c_<uuid>-lock-<10-digit sequence>
// (a protected create, protected_create.h). The children carrying a sequence,
// in sequence order, are the queue; the first holds the lock. Every other
// candidate watches only its predecessor (getData with a watch) and looks
// again when it goes, so a release wakes exactly one waiter.
//
// Guarantees: at most one holder at a time among sessions that have not
// expired; fairness in creation order; a fencing token per acquisition
// (fencing.h: the czxid of the winning node).
//
// Connection loss: each step is retried per LockOptions::retry; a create lost
// in flight is found again by its protection prefix, never duplicated;
// watches survive reconnection. Session expiry while waiting fails the
// acquire (kSessionExpired); while holding, the hold reports the loss
// (lock_hold.h). Not reentrant: a second acquire from the same session
// queues behind the first.
//
// Threading: one Lock may be used by one thread at a time; several Lock
// objects (on the same or different clients) may contend from any threads.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "recipes/lock_hold.h"
#include "recipes/lock_options.h"

namespace zk::recipes {

class Lock : public LockRecipe {
 public:
  // The node name Curator's InterProcessMutex uses ("lock-").
  static constexpr const char* kNodeName = "lock-";

  // `zk` must be connected and outlive the Lock and its holds.
  Lock(SyncClient& zk, std::string path, LockOptions options = {});

  // Blocks until the lock is held, or `timeout` passes (none: forever; zero:
  // try once). Errors: kOperationTimeout (timed out; this candidate's node is
  // removed), kSessionExpired, kClosing, kNoNode (our node was deleted by
  // someone else while waiting), kConnectionLoss (retries ran out), and
  // those of create (kNoAuth, kInvalidACL...).
  Result<LockHold> acquire(std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  // wakeups() (LockRecipe) counts how many times acquires on this object
  // woke to look at the queue again (a watched predecessor went, or was gone
  // before the watch was set). With no timeouts and no lost sessions, exactly
  // one per wait: the herd-free property, observable.
};

}  // namespace zk::recipes
