// SPDX-License-Identifier: Apache-2.0
#include "recipes/lock.h"

#include "recipes/lock_queue.h"

namespace zk::recipes {

Lock::Lock(SyncClient& zk, std::string path, LockOptions options)
    : LockRecipe(zk, std::move(path), std::move(options)) {}

Result<LockHold> Lock::acquire(std::optional<std::chrono::milliseconds> timeout) {
  return detail::acquire_queued(
      zk_, {path_, kNodeName, options_, detail::predecessor_blocks, timeout, &wakeups_});
}

}  // namespace zk::recipes
