// SPDX-License-Identifier: Apache-2.0
#include "recipes/simple_lock.h"

#include "libzk/wire/path.h"
#include "recipes/lock_internals.h"
#include "recipes/protected_create.h"

namespace zk::recipes {

using zk::wire::CreateMode;

namespace {

// Creates PATH as an ephemeral node: kOk, kNodeExists, or kConnectionLoss
// when the create may or may not have been applied.
Status try_create(SyncClient& zk, const std::string& path, const LockOptions& options) {
  auto created = zk.create(path, options.data, CreateMode::kEphemeral);
  if (created.error() == Error::kNoNode) {
    Status parent = ensure_path(zk, std::string(zk::wire::parent_path(path)), options.retry);
    if (!parent.ok()) return parent;
    created = zk.create(path, options.data, CreateMode::kEphemeral);
  }
  return created.error();
}

}  // namespace

SimpleLock::SimpleLock(SyncClient& zk, std::string path, LockOptions options)
    : LockRecipe(zk, std::move(path), std::move(options)) {}

Result<LockHold> SimpleLock::acquire(std::optional<std::chrono::milliseconds> timeout) {
  const detail::Deadline deadline = detail::deadline_after(timeout);
  auto waker = std::make_shared<detail::Waker>();
  const auto start = detail::Clock::now();
  for (int attempt = 0;; ++attempt) {
    const uint64_t seen = waker->seen();
    Status created = try_create(zk_, path_, options_);
    if (created.ok() || created.error() == Error::kConnectionLoss ||
        created.error() == Error::kNodeExists) {
      // Whose is PATH? (After a connection loss it may be ours.) The watch
      // wakes us when it changes.
      auto stat = with_retries<std::optional<zk::wire::Stat>>(
          zk_, options_.retry, [&] { return zk_.exists(path_, detail::wake_on_event(waker)); });
      if (!stat.ok()) return stat.error();
      if (stat->has_value() && (*stat)->ephemeral_owner == zk_.session_id()) {
        auto node = detail::watch_held_node(zk_, path_, /*sequential=*/false, options_.on_lost,
                                            options_.retry);
        if (!node.ok()) return node.error();
        LockHold hold(zk_, options_.retry, *node);
        if (!(*node)->mark_acquired()) return detail::HeldNode::error_for(*(*node)->loss);
        return hold;
      }
      if (!stat->has_value()) {
        // Gone again (or our create was lost before reaching the server).
        if (created.error() == Error::kConnectionLoss &&
            !backoff(zk_, options_.retry, start, attempt)) {
          return Error::kConnectionLoss;
        }
        continue;
      }
      if (options_.on_wait) options_.on_wait(path_);
      if (!waker->wait(seen, deadline)) return Error::kOperationTimeout;
      ++wakeups_;
      continue;
    }
    return created.error();
  }
}

}  // namespace zk::recipes
