// SPDX-License-Identifier: Apache-2.0
// Options every lock and election recipe takes, and the state they share.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "libzk/wire/protocol.h"
#include "recipes/lock_hold.h"
#include "recipes/retry.h"

namespace zk::recipes {

struct LockOptions {
  // How long each step keeps retrying on connection loss (retry.h).
  RetryPolicy retry;
  // The data of this candidate's node (Curator's lock nodes carry the
  // client's address by default; the election stores the candidate's id).
  zk::wire::Buffer data = std::string();
  // Runs once if a held lock is lost (lock_hold.h): on the client's io
  // thread, must not block. Not called for a loss while still waiting (the
  // acquire fails instead).
  LossCallback on_lost;
  // Runs on the acquiring thread each time an acquire starts waiting, with
  // the path of the node it waits for (progress reporting, tests).
  std::function<void(const std::string& waiting_for)> on_wait;
};

// What each lock and election object holds: the borrowed client, the lock
// path, its options and the count of its acquires' wake-ups. The recipes
// derive from it; it is not used on its own.
class LockRecipe {
 public:
  LockRecipe(const LockRecipe&) = delete;
  LockRecipe& operator=(const LockRecipe&) = delete;

  // How many times acquires on this object woke to look again (each recipe's
  // header says what wakes it; lock.h states the herd-free bound).
  int64_t wakeups() const { return wakeups_.load(); }

  const std::string& path() const { return path_; }

 protected:
  // `zk` must be connected and outlive the object and its holds.
  LockRecipe(SyncClient& zk, std::string path, LockOptions options)
      : zk_(zk), path_(std::move(path)), options_(std::move(options)) {}
  ~LockRecipe() = default;

  SyncClient& zk_;
  std::string path_;
  LockOptions options_;
  std::atomic<int64_t> wakeups_{0};
};

}  // namespace zk::recipes
