// SPDX-License-Identifier: Apache-2.0
#include "recipes/lock_internals.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <utility>

#include "recipes/protected_create.h"

namespace zk::recipes::detail {

using zk::client::WatchCallback;
using zk::client::WatchedEvent;
using zk::wire::EventType;
using zk::wire::KeeperState;

void HeldNode::mark_lost(LossReason reason) {
  bool was_acquired = false;
  {
    std::lock_guard lock(mu);
    if (released || loss) return;
    loss = reason;
    was_acquired = acquired;
  }
  lost_cv.notify_all();
  waker->notify(/*stop_waiting=*/true);
  if (was_acquired && on_lost) on_lost(reason);
}

bool HeldNode::mark_acquired() {
  std::lock_guard lock(mu);
  if (loss) return false;
  acquired = true;
  return true;
}

Error HeldNode::error_for(LossReason reason) {
  switch (reason) {
    case LossReason::kNodeDeleted:
      return Error::kNoNode;
    case LossReason::kSessionClosed:
      return Error::kClosing;
    case LossReason::kSessionExpired:
      break;
  }
  return Error::kSessionExpired;
}

namespace {

WatchCallback own_node_watch(SyncClient& zk, const std::weak_ptr<HeldNode>& weak);

// Sets the own-node watch again after a data change (the one-shot watch was
// used up), on the io thread. A connection loss is retried after a pause
// until the session ends; a missing node is a loss.
boost::asio::awaitable<void> rearm(SyncClient& zk, std::weak_ptr<HeldNode> weak) {
  for (;;) {
    auto node = weak.lock();
    if (!node) co_return;
    const std::string path = node->path;
    node.reset();
    WatchCallback watch = own_node_watch(zk, weak);
    auto stat = co_await zk.async_client().exists(path, std::move(watch));
    node = weak.lock();
    if (!node) co_return;
    if (stat.ok()) {
      if (!stat->has_value()) node->mark_lost(LossReason::kNodeDeleted);
      co_return;
    }
    if (stat.error() == Error::kSessionExpired) node->mark_lost(LossReason::kSessionExpired);
    if (stat.error() != Error::kConnectionLoss) co_return;
    node.reset();
    boost::asio::steady_timer pause(zk.executor(), std::chrono::milliseconds(200));
    co_await pause.async_wait(boost::asio::use_awaitable);
  }
}

WatchCallback own_node_watch(SyncClient& zk, const std::weak_ptr<HeldNode>& weak) {
  return [&zk, weak](const WatchedEvent& e) {
    auto node = weak.lock();
    if (!node) return;
    switch (e.type) {
      case EventType::kNodeDeleted:
        node->mark_lost(LossReason::kNodeDeleted);
        return;
      case EventType::kNodeDataChanged:
        boost::asio::co_spawn(zk.executor(), rearm(zk, weak), boost::asio::detached);
        return;
      case EventType::kNone:
        if (e.state == KeeperState::kExpired) node->mark_lost(LossReason::kSessionExpired);
        if (e.state == KeeperState::kClosed) node->mark_lost(LossReason::kSessionClosed);
        return;
      default:
        return;
    }
  };
}

}  // namespace

Result<std::shared_ptr<HeldNode>> watch_held_node(SyncClient& zk, const std::string& path,
                                                  bool sequential, LossCallback on_lost,
                                                  const RetryPolicy& retry) {
  auto node = std::make_shared<HeldNode>();
  node->path = path;
  node->on_lost = std::move(on_lost);
  std::weak_ptr<HeldNode> weak = node;
  auto stat = with_retries<std::optional<zk::wire::Stat>>(
      zk, retry, [&] { return zk.exists(path, own_node_watch(zk, weak)); });
  if (!stat.ok()) return stat.error();
  if (!stat->has_value()) return Error::kNoNode;
  if ((*stat)->ephemeral_owner != zk.session_id()) return Error::kNodeExists;
  node->token.czxid = (*stat)->czxid;
  if (sequential) {
    node->token.sequence = sequence_of(path.substr(path.rfind('/') + 1)).value_or(-1);
  }
  return node;
}

}  // namespace zk::recipes::detail
