// SPDX-License-Identifier: Apache-2.0
#include "recipes/lock_hold.h"

#include "recipes/lock_internals.h"
#include "recipes/znode_util.h"

namespace zk::recipes {

std::string_view loss_reason_text(LossReason reason) {
  switch (reason) {
    case LossReason::kSessionExpired:
      return "session expired";
    case LossReason::kSessionClosed:
      return "session closed";
    case LossReason::kNodeDeleted:
      return "lock node deleted";
  }
  return "lost";
}

LockHold::LockHold(SyncClient& zk, RetryPolicy retry, std::shared_ptr<detail::HeldNode> node)
    : zk_(&zk), retry_(retry), node_(std::move(node)) {}

LockHold::~LockHold() { (void)release(); }

LockHold::LockHold(LockHold&& other) noexcept
    : zk_(other.zk_), retry_(other.retry_), node_(std::move(other.node_)) {}

LockHold& LockHold::operator=(LockHold&& other) noexcept {
  if (this != &other) {
    (void)release();
    zk_ = other.zk_;
    retry_ = other.retry_;
    node_ = std::move(other.node_);
  }
  return *this;
}

bool LockHold::held() const {
  if (!node_) return false;
  std::lock_guard lock(node_->mu);
  return !node_->released && !node_->loss;
}

bool LockHold::lost() const { return loss().has_value(); }

std::optional<LossReason> LockHold::loss() const {
  if (!node_) return std::nullopt;
  std::lock_guard lock(node_->mu);
  return node_->loss;
}

bool LockHold::wait_lost(std::chrono::milliseconds timeout) const {
  if (!node_) return false;
  std::unique_lock lock(node_->mu);
  return node_->lost_cv.wait_for(lock, timeout, [&] { return node_->loss.has_value(); });
}

FencingToken LockHold::token() const { return node_ ? node_->token : FencingToken{}; }

const std::string& LockHold::node() const {
  static const std::string kNone;
  return node_ ? node_->path : kNone;
}

Status LockHold::release() {
  if (!node_) return Error::kOk;
  {
    std::lock_guard lock(node_->mu);
    if (node_->released) return Error::kOk;
    node_->released = true;
    // A lost node is gone already: expired and closed sessions take their
    // ephemerals with them, and a deleted one is deleted.
    if (node_->loss) return Error::kOk;
  }
  return detail::remove_node(*zk_, node_->path, retry_);
}

}  // namespace zk::recipes
