// SPDX-License-Identifier: Apache-2.0
#include "recipes/barrier.h"

#include "recipes/protected_create.h"
#include "recipes/watch_wait.h"
#include "recipes/znode_util.h"

namespace zk::recipes {

Status set_barrier(SyncClient& zk, const std::string& path, const RetryPolicy& policy) {
  return ensure_path(zk, path, policy);
}

Status remove_barrier(SyncClient& zk, const std::string& path, const RetryPolicy& policy) {
  return detail::remove_node(zk, path, policy);
}

Status wait_on_barrier(SyncClient& zk, const std::string& path,
                       std::optional<std::chrono::milliseconds> timeout,
                       const RetryPolicy& policy) {
  const detail::Deadline deadline = detail::deadline_after(timeout);
  for (;;) {
    auto stat = detail::watched_read<std::optional<zk::wire::Stat>>(
        zk, policy, [&](auto watch) { return zk.exists(path, std::move(watch)); });
    if (!stat.result.ok()) return stat.result.error();
    if (!stat.result->has_value()) return Error::kOk;
    if (!stat.wait(deadline)) return Error::kOperationTimeout;
  }
}

}  // namespace zk::recipes
