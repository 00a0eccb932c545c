// SPDX-License-Identifier: Apache-2.0
#include "recipes/rw_lock.h"

#include "recipes/lock_queue.h"

namespace zk::recipes {

namespace {

bool is_writer(const detail::QueueEntry& entry) {
  return entry.name.find(ReadWriteLock::kWriteName) != std::string::npos;
}

// A reader waits for the last writer before it.
std::optional<size_t> last_writer_before(const std::vector<detail::QueueEntry>& queue,
                                         size_t index) {
  for (size_t i = index; i > 0; --i) {
    if (is_writer(queue[i - 1])) return i - 1;
  }
  return std::nullopt;
}

}  // namespace

ReadWriteLock::ReadWriteLock(SyncClient& zk, std::string path, LockOptions options)
    : LockRecipe(zk, std::move(path), std::move(options)) {}

Result<LockHold> ReadWriteLock::acquire_read(std::optional<std::chrono::milliseconds> timeout) {
  return acquire(false, timeout);
}

Result<LockHold> ReadWriteLock::acquire_write(std::optional<std::chrono::milliseconds> timeout) {
  return acquire(true, timeout);
}

Result<LockHold> ReadWriteLock::acquire(bool write,
                                        std::optional<std::chrono::milliseconds> timeout) {
  auto blocker = write ? detail::BlockerRule(detail::predecessor_blocks)
                       : detail::BlockerRule(last_writer_before);
  return detail::acquire_queued(zk_, {path_, write ? kWriteName : kReadName, options_,
                                      std::move(blocker), timeout, &wakeups_});
}

}  // namespace zk::recipes
