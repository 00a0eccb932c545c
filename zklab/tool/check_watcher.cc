// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/check_watcher.h"

#include <memory>

#include "libzk/client/sync_client.h"

namespace zk::lab::check {

CheckWatcher::CheckWatcher(ClientSettings settings, std::vector<std::string> registers)
    : settings_(std::move(settings)), registers_(std::move(registers)) {}

CheckWatcher::~CheckWatcher() { stop(); }

void CheckWatcher::start() {
  thread_ = std::thread([this] { run(); });
}

void CheckWatcher::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::vector<WatchEventRecord> CheckWatcher::events() const {
  std::lock_guard lock(mutex_);
  return events_;
}

void CheckWatcher::run() {
  for (int watcher = 1;; ++watcher) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      expired_ = false;
    }
    if (!watch_one_session(watcher)) {
      // No server took the session in time (the nemesis may hold them all):
      // try again after a while, unless stopped meanwhile.
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, settings_.request_deadline, [this] { return stopping_; });
    }
  }
}

bool CheckWatcher::watch_one_session(int watcher) {
  // The session listener and the watch callbacks run on the client's io
  // thread, in the order the connection delivered them: the connection
  // number an event gets is the one it came on.
  auto connection = std::make_shared<int>(0);
  zk::client::ClientOptions options;
  toolkit::apply_client_security(settings_.security, options);
  options.on_session_event = [this, connection](zk::client::SessionState state) {
    if (state == zk::client::SessionState::kConnected) ++*connection;
    if (state == zk::client::SessionState::kExpired) {
      {
        std::lock_guard lock(mutex_);
        expired_ = true;
      }
      wake_.notify_all();
    }
  };
  zk::client::SyncClient client(options);
  if (!client.connect(settings_.connect_string, settings_.session_timeout,
                      settings_.request_deadline)) {
    return false;
  }
  for (const std::string& path : registers_) {
    auto watch = [this, watcher, connection](const zk::client::WatchedEvent& e) {
      if (e.type != zk::wire::EventType::kNodeDataChanged) return;
      std::lock_guard lock(mutex_);
      events_.push_back({watcher, *connection, e.path, e.zxid});
    };
    if (!client.add_watch(path, zk::wire::AddWatchMode::kPersistent, watch)) return false;
  }
  std::unique_lock lock(mutex_);
  wake_.wait(lock, [this] { return stopping_ || expired_; });
  lock.unlock();
  (void)client.close();
  return true;
}

}  // namespace zk::lab::check
