#include "zkd/tree/watch_manager.h"

#include <algorithm>
#include <string>

#include "zkd/tree/data_tree.h"

namespace zkd::tree {
namespace {

using zk::wire::EventType;

Notification event(WatcherId w, EventType type, std::string_view path, const zk::wire::ACLs& acl) {
  Notification n = make_notification(w, type, path);
  n.acl = acl;
  return n;
}

void fire(WatchTable& table, std::string_view path, EventType type, const zk::wire::ACLs& acl,
          std::vector<Notification>& out) {
  for (WatcherId w : table.take(path)) out.push_back(event(w, type, path, acl));
}

}  // namespace

Notification make_notification(WatcherId watcher, EventType type, std::string_view path) {
  Notification n;
  n.watcher = watcher;
  n.event.type = type;
  n.event.state = zk::wire::KeeperState::kSyncConnected;
  n.event.path = std::string(path);
  return n;
}

void WatchManager::remove_watcher(WatcherId watcher) {
  data_.remove_watcher(watcher);
  children_.remove_watcher(watcher);
}

void WatchManager::node_created(std::string_view path, const zk::wire::ACLs& acl,
                                const zk::wire::ACLs& parent_acl, std::vector<Notification>& out) {
  fire(data_, path, EventType::kNodeCreated, acl, out);
  fire(children_, event_path_of_parent(apache_parent(path)), EventType::kNodeChildrenChanged,
       parent_acl, out);
}

void WatchManager::node_deleted(std::string_view path, const zk::wire::ACLs& acl,
                                const zk::wire::ACLs& parent_acl, std::vector<Notification>& out) {
  std::vector<WatcherId> data_watchers = data_.take(path);
  std::vector<WatcherId> child_watchers = children_.take(path);
  for (WatcherId w : data_watchers) out.push_back(event(w, EventType::kNodeDeleted, path, acl));
  for (WatcherId w : child_watchers) {
    if (!std::binary_search(data_watchers.begin(), data_watchers.end(), w)) {
      out.push_back(event(w, EventType::kNodeDeleted, path, acl));
    }
  }
  fire(children_, event_path_of_parent(apache_parent(path)), EventType::kNodeChildrenChanged,
       parent_acl, out);
}

void WatchManager::data_changed(std::string_view path, const zk::wire::ACLs& acl,
                                std::vector<Notification>& out) {
  fire(data_, path, EventType::kNodeDataChanged, acl, out);
}

}  // namespace zkd::tree
