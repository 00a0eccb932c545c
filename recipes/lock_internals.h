// SPDX-License-Identifier: Apache-2.0
// What the lock and election recipes share inside the library: the state of
// a held (or waiting) candidate node and watching one's own node for loss.
// The wake-up channel (Waker, deadlines) is watch_wait.h; child_path and
// remove_node are znode_util.h. Not a public header.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "libzk/client/sync_client.h"
#include "recipes/fencing.h"
#include "recipes/lock_hold.h"
#include "recipes/retry.h"
#include "recipes/watch_wait.h"

namespace zk::recipes::detail {

// A node of this session that won (or waits for) a lock. Watch callbacks
// hold it weakly.
struct HeldNode {
  std::string path;
  FencingToken token;
  LossCallback on_lost;
  std::shared_ptr<Waker> waker = std::make_shared<Waker>();  // stopped on loss

  std::mutex mu;
  std::optional<LossReason> loss;  // guarded by mu
  bool released = false;           // guarded by mu
  bool acquired = false;           // guarded by mu: on_lost is for held nodes only
  std::condition_variable lost_cv;

  // Records the loss unless released or already lost; runs on_lost then if
  // the node was acquired.
  void mark_lost(LossReason reason);
  // Marks the node acquired; false (and nothing changes) when it is lost.
  bool mark_acquired();
  // The error an acquire returns for a node lost while waiting: kNoNode
  // (deleted), kSessionExpired, kClosing (closed).
  static Error error_for(LossReason reason);
};

// Watches `path`, an ephemeral node this session created, for loss (see
// lock_hold.h) and reads its token (with the name's sequence when
// `sequential`). Errors: kNoNode (the node is gone), kNodeExists when the
// node belongs to another session, kSessionExpired, kConnectionLoss when the
// retries run out.
Result<std::shared_ptr<HeldNode>> watch_held_node(SyncClient& zk, const std::string& path,
                                                  bool sequential, LossCallback on_lost,
                                                  const RetryPolicy& retry);

}  // namespace zk::recipes::detail
