// SPDX-License-Identifier: Apache-2.0
#include "recipes/lock_queue.h"

#include <algorithm>

#include "recipes/lock_internals.h"
#include "recipes/protected_create.h"
#include "recipes/znode_util.h"

namespace zk::recipes::detail {

using zk::wire::CreateMode;

Result<std::vector<QueueEntry>> read_queue(SyncClient& zk, const std::string& dir,
                                           const RetryPolicy& retry) {
  auto names =
      with_retries<std::vector<std::string>>(zk, retry, [&] { return zk.get_children(dir); });
  if (!names.ok()) return names.error();
  std::vector<QueueEntry> queue;
  for (std::string& name : *names) {
    if (auto sequence = sequence_of(name)) queue.push_back({std::move(name), *sequence});
  }
  std::sort(queue.begin(), queue.end(),
            [](const QueueEntry& a, const QueueEntry& b) { return a.sequence < b.sequence; });
  return queue;
}

std::optional<size_t> predecessor_blocks(const std::vector<QueueEntry>&, size_t index) {
  if (index == 0) return std::nullopt;
  return index - 1;
}

namespace {

// The wait loop once the candidate's node exists. Returns kOk when it holds.
Status wait_in_queue(SyncClient& zk, const QueueRequest& request, HeldNode& node,
                     const Deadline& deadline) {
  const std::string own_name = node.path.substr(node.path.rfind('/') + 1);
  for (bool first = true;; first = false) {
    if (!first && request.wakeups != nullptr) ++*request.wakeups;
    {
      std::lock_guard lock(node.mu);
      if (node.loss) return HeldNode::error_for(*node.loss);
    }
    auto queue = read_queue(zk, request.dir, request.options.retry);
    if (!queue.ok()) return queue.error();
    auto own = std::find_if(queue->begin(), queue->end(),
                            [&](const QueueEntry& e) { return e.name == own_name; });
    if (own == queue->end()) return Error::kNoNode;
    auto blocker = request.blocker(*queue, static_cast<size_t>(own - queue->begin()));
    if (!blocker) return Error::kOk;
    const std::string blocker_path = child_path(request.dir, (*queue)[*blocker].name);
    const uint64_t seen = node.waker->seen();
    auto watched = with_retries<zk::client::NodeData>(zk, request.options.retry, [&] {
      return zk.get_data(blocker_path, wake_on_event(node.waker));
    });
    if (!watched.ok()) {
      if (watched.error() == Error::kNoNode) continue;  // gone already: look again
      return watched.error();
    }
    if (request.options.on_wait) request.options.on_wait(blocker_path);
    if (!node.waker->wait(seen, deadline)) return Error::kOperationTimeout;
  }
}

}  // namespace

Result<LockHold> acquire_queued(SyncClient& zk, const QueueRequest& request) {
  const Deadline deadline = deadline_after(request.timeout);
  auto created = protected_create(zk, request.dir, request.name, request.options.data,
                                  CreateMode::kEphemeralSequential, request.options.retry);
  if (!created.ok()) return created.error();
  auto node = watch_held_node(zk, *created, /*sequential=*/true, request.options.on_lost,
                              request.options.retry);
  if (!node.ok()) {
    (void)remove_node(zk, *created, request.options.retry);
    return node.error();
  }
  // The hold owns the node from here on: any failure below releases it.
  LockHold hold(zk, request.options.retry, *node);
  Status waited = wait_in_queue(zk, request, **node, deadline);
  if (!waited.ok()) return waited.error();
  if (!(*node)->mark_acquired()) return HeldNode::error_for(*(*node)->loss);
  return hold;
}

}  // namespace zk::recipes::detail
