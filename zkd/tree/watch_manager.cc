// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/watch_manager.h"

#include <algorithm>
#include <string>

#include "zkd/tree/data_tree.h"

namespace zkd::tree {

using zk::wire::EventType;
using zk::wire::WatcherType;

Notification make_notification(WatcherId watcher, EventType type, std::string_view path) {
  Notification n;
  n.watcher = watcher;
  n.event.type = type;
  n.event.state = zk::wire::KeeperState::kSyncConnected;
  n.event.path = std::string(path);
  return n;
}

namespace {

// One event per watcher in `watchers` (sorted and deduplicated here).
void emit(std::vector<WatcherId> watchers, EventType type, std::string_view path,
          const zk::wire::ACLs& acl, std::vector<Notification>& out) {
  std::sort(watchers.begin(), watchers.end());
  watchers.erase(std::unique(watchers.begin(), watchers.end()), watchers.end());
  for (WatcherId w : watchers) {
    out.push_back(make_notification(w, type, path));
    out.back().acl = acl;
  }
}

}  // namespace

void WatchManager::fire(std::vector<WatcherId> watchers, EventType type, std::string_view path,
                        const zk::wire::ACLs& acl, std::vector<Notification>& out) const {
  persistent_.collect(path, type == EventType::kNodeChildrenChanged, watchers);
  emit(std::move(watchers), type, path, acl, out);
}

bool WatchManager::remove(std::string_view path, WatcherId watcher, WatcherType type) {
  switch (type) {
    case WatcherType::kChildren:
      return children_.remove(path, watcher);
    case WatcherType::kData:
      return data_.remove(path, watcher);
    case WatcherType::kAny: {
      const bool child = children_.remove(path, watcher);
      const bool data = data_.remove(path, watcher);
      const bool persistent = persistent_.remove(path, watcher);
      return child || data || persistent;
    }
  }
  return false;
}

bool WatchManager::contains(std::string_view path, WatcherId watcher, WatcherType type) const {
  switch (type) {
    case WatcherType::kChildren:
      return children_.contains(path, watcher);
    case WatcherType::kData:
      return data_.contains(path, watcher);
    case WatcherType::kAny:
      return children_.contains(path, watcher) || data_.contains(path, watcher) ||
             persistent_.contains(path, watcher);
  }
  return false;
}

void WatchManager::remove_watcher(WatcherId watcher) {
  data_.remove_watcher(watcher);
  children_.remove_watcher(watcher);
  persistent_.remove_watcher(watcher);
}

void WatchManager::node_created(std::string_view path, const zk::wire::ACLs& acl,
                                const zk::wire::ACLs& parent_acl, std::vector<Notification>& out) {
  fire(data_.take(path), EventType::kNodeCreated, path, acl, out);
  const std::string_view parent = event_path_of_parent(apache_parent(path));
  fire(children_.take(parent), EventType::kNodeChildrenChanged, parent, parent_acl, out);
}

void WatchManager::node_deleted(std::string_view path, const zk::wire::ACLs& acl,
                                const zk::wire::ACLs& parent_acl, std::vector<Notification>& out) {
  // Apache: the data table's watchers (with the persistent ones), then the
  // child table's that did not get it already.
  std::vector<WatcherId> data_watchers = data_.take(path);
  persistent_.collect(path, false, data_watchers);
  std::sort(data_watchers.begin(), data_watchers.end());
  std::vector<WatcherId> child_watchers;
  for (WatcherId w : children_.take(path)) {
    if (!std::binary_search(data_watchers.begin(), data_watchers.end(), w)) {
      child_watchers.push_back(w);
    }
  }
  emit(std::move(data_watchers), EventType::kNodeDeleted, path, acl, out);
  emit(std::move(child_watchers), EventType::kNodeDeleted, path, acl, out);
  const std::string_view parent = event_path_of_parent(apache_parent(path));
  fire(children_.take(parent), EventType::kNodeChildrenChanged, parent, parent_acl, out);
}

void WatchManager::data_changed(std::string_view path, const zk::wire::ACLs& acl,
                                std::vector<Notification>& out) {
  fire(data_.take(path), EventType::kNodeDataChanged, path, acl, out);
}

}  // namespace zkd::tree
