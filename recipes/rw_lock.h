// SPDX-License-Identifier: Apache-2.0
// ReadWriteLock: the paper's read/write lock without herd effect, in the node
// layout of Curator's InterProcessReadWriteLock, so that Curator readers and
// writers and these recipes share one lock.
//
// Layout: under PATH, ephemeral sequential nodes (protected creates)
//   PATH/_c_<uuid>-__READ__<seq>   a reader
//   PATH/_c_<uuid>-__WRIT__<seq>   a writer
// ordered by sequence (both names share one counter: PATH's). A writer holds
// when it is first and watches its predecessor otherwise; a reader holds when
// no writer is before it and watches the last writer before it otherwise
// (Curator's reader watches the first one; either is correct, and this one
// wakes a reader only when every earlier writer has gone or is going).
//
// Guarantees: readers hold together, a writer holds alone; requests are
// served in creation order (a reader behind a waiting writer waits). Fencing
// tokens: each hold's node's czxid (readers' tokens are larger than the
// token of every writer before them). Connection loss, expiry, loss reports
// and threading: as Lock (lock.h). Not reentrant and no upgrade or
// downgrade (Curator's reentrancy is per JVM thread).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "recipes/lock_hold.h"
#include "recipes/lock_options.h"

namespace zk::recipes {

class ReadWriteLock : public LockRecipe {
 public:
  // Curator's names; the same length, as Curator requires.
  static constexpr const char* kReadName = "__READ__";
  static constexpr const char* kWriteName = "__WRIT__";

  // `zk` must be connected and outlive the lock and its holds.
  ReadWriteLock(SyncClient& zk, std::string path, LockOptions options = {});

  // Block until held, or `timeout` passes (none: forever; zero: try once).
  // Errors: as Lock::acquire.
  Result<LockHold> acquire_read(std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  Result<LockHold> acquire_write(std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  // wakeups() (LockRecipe): as Lock's, for both kinds of acquire.

 private:
  Result<LockHold> acquire(bool write, std::optional<std::chrono::milliseconds> timeout);
};

}  // namespace zk::recipes
