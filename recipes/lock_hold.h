// SPDX-License-Identifier: Apache-2.0
// LockHold: a held lock (or leadership) of the lock and election recipes.
//
// The hold owns one ephemeral node of this session (the node that won) and
// releases it by deleting it: explicitly with release(), or when destroyed
// (RAII). It hands out the node's fencing token (fencing.h).
//
// Loss. The hold watches its own node. It is lost, reported once through the
// LossCallback given at acquisition and queryable with lost()/loss()/
// wait_lost(), when
//   * the session expires (seen when the client reconnects and the server
//     says so): kSessionExpired;
//   * the session is closed (SyncClient::close()): kSessionClosed;
//   * the node is deleted by someone else (an operator's `deleteall`):
//     kNodeDeleted.
// While the client is disconnected it cannot know: the server may expire the
// session after the negotiated timeout and hand the lock to the next waiter
// before this client reconnects and learns of it. That window is what the
// fencing token closes; a caller that must stop sooner can treat a
// disconnection longer than the session timeout as a loss (zkctl lock does).
//
// Threading: a LockHold is used from one thread at a time; the LossCallback
// runs on the client's io thread and must not block or call into the
// SyncClient. The SyncClient must outlive the hold (or the hold must be
// released first).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "recipes/fencing.h"
#include "recipes/retry.h"

namespace zk::recipes {

enum class LossReason { kSessionExpired, kSessionClosed, kNodeDeleted };

// "session expired", "session closed", "lock node deleted".
std::string_view loss_reason_text(LossReason reason);

// Called at most once per hold, on the client's io thread; must not block.
using LossCallback = std::function<void(LossReason)>;

namespace detail {
struct HeldNode;  // lock_internals.h
}

class LockHold {
 public:
  // Holds nothing.
  LockHold() = default;
  // For the recipes: a hold of `node` on `zk`, released with `retry`.
  LockHold(SyncClient& zk, RetryPolicy retry, std::shared_ptr<detail::HeldNode> node);
  // Releases (see release()); errors are ignored.
  ~LockHold();
  LockHold(LockHold&& other) noexcept;
  // Releases what this hold held, then takes `other`'s.
  LockHold& operator=(LockHold&& other) noexcept;
  LockHold(const LockHold&) = delete;
  LockHold& operator=(const LockHold&) = delete;

  // True while acquired, not released and not lost.
  bool held() const;
  // True once lost (stays true after release()).
  bool lost() const;
  // Why it was lost, if it was.
  std::optional<LossReason> loss() const;
  // Blocks until the hold is lost or `timeout` passes; true if lost.
  bool wait_lost(std::chrono::milliseconds timeout) const;

  // The winning node's token; {} when the hold holds nothing.
  FencingToken token() const;
  // The winning node's path; empty when the hold holds nothing.
  const std::string& node() const;

  // Deletes the node, retrying on connection loss per the retry policy;
  // kNoNode (already gone: lost) is success. Idempotent. When the retries
  // run out (kConnectionLoss) the node stays until the session ends, and
  // others wait until then.
  Status release();

 private:
  SyncClient* zk_ = nullptr;
  RetryPolicy retry_;
  std::shared_ptr<detail::HeldNode> node_;
};

}  // namespace zk::recipes
