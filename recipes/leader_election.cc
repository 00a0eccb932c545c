// SPDX-License-Identifier: Apache-2.0
#include "recipes/leader_election.h"

#include "recipes/lock_queue.h"
#include "recipes/znode_util.h"

namespace zk::recipes {

LeaderElection::LeaderElection(SyncClient& zk, std::string path, std::string id,
                               LockOptions options)
    : LockRecipe(zk, std::move(path), std::move(options)), id_(std::move(id)) {
  options_.data = id_;
}

Result<Leadership> LeaderElection::await_leadership(
    std::optional<std::chrono::milliseconds> timeout) {
  return detail::acquire_queued(
      zk_, {path_, kNodeName, options_, detail::predecessor_blocks, timeout, &wakeups_});
}

Result<std::optional<std::string>> LeaderElection::leader_id(SyncClient& zk,
                                                             const std::string& path,
                                                             const RetryPolicy& retry) {
  for (;;) {
    auto queue = detail::read_queue(zk, path, retry);
    if (!queue.ok() && queue.error() == Error::kNoNode) return std::optional<std::string>();
    if (!queue.ok()) return queue.error();
    if (queue->empty()) return std::optional<std::string>();
    const std::string first = detail::child_path(path, queue->front().name);
    auto data = with_retries<zk::client::NodeData>(zk, retry, [&] { return zk.get_data(first); });
    if (data.ok()) return std::optional<std::string>(data->data.value_or(std::string()));
    if (data.error() != Error::kNoNode) return data.error();
    // The leader just went: look again.
  }
}

}  // namespace zk::recipes
