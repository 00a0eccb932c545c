// SPDX-License-Identifier: Apache-2.0
#include "recipes/watch_wait.h"

namespace zk::recipes::detail {

void Waker::notify(bool stop_waiting) {
  {
    std::lock_guard lock(mu);
    ++events;
    if (stop_waiting) stop = true;
  }
  cv.notify_all();
}

uint64_t Waker::seen() {
  std::lock_guard lock(mu);
  return events;
}

bool Waker::wait(uint64_t seen, const Deadline& deadline) {
  std::unique_lock lock(mu);
  auto ready = [&] { return stop || events != seen; };
  if (!deadline) {
    cv.wait(lock, ready);
    return true;
  }
  return cv.wait_until(lock, *deadline, ready);
}

zk::client::WatchCallback wake_on_event(const std::shared_ptr<Waker>& waker) {
  return [weak = std::weak_ptr<Waker>(waker)](const zk::client::WatchedEvent&) {
    if (auto w = weak.lock()) w->notify();
  };
}

}  // namespace zk::recipes::detail
