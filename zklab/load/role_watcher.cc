// SPDX-License-Identifier: Apache-2.0
#include "zklab/load/role_watcher.h"

namespace zk::lab {

RoleWatcher::RoleWatcher(Poll poll, Clock::time_point origin, std::chrono::milliseconds interval)
    : poll_(std::move(poll)), origin_(origin), interval_(interval), thread_([this] { run(); }) {}

RoleWatcher::~RoleWatcher() { stop(); }

void RoleWatcher::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::vector<TimelineEvent> RoleWatcher::events() const {
  std::lock_guard lock(mu_);
  return events_;
}

RoleWatcher::Roles RoleWatcher::roles() const {
  std::lock_guard lock(mu_);
  return roles_;
}

bool RoleWatcher::wait_until(const std::function<bool(const Roles&)>& done,
                             Clock::time_point until) const {
  std::unique_lock lock(mu_);
  return cv_.wait_until(lock, until, [&] { return !roles_.empty() && done(roles_); });
}

void RoleWatcher::run() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    lock.unlock();
    Roles now = poll_();
    const auto at = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - origin_);
    lock.lock();
    for (const auto& [id, role] : now) {
      auto it = roles_.find(id);
      if (it != roles_.end() && it->second == role) continue;
      events_.push_back(TimelineEvent{at, EventKind::kRole, id, role});
    }
    roles_ = std::move(now);
    cv_.notify_all();
    // The poll interval; stop() cuts it short.
    cv_.wait_for(lock, interval_, [this] { return stop_; });
  }
}

}  // namespace zk::lab
