// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/set_watches.h"

namespace zkd::tree {

using zk::wire::EventType;

std::vector<Notification> restore_watches(const DataTree& tree, WatchManager& watches,
                                          WatcherId watcher, const zk::wire::SetWatches& w) {
  std::vector<Notification> out;
  for (const std::string& path : w.data_watches) {
    const Node* node = tree.find(path);
    if (node == nullptr) {
      out.push_back(make_notification(watcher, EventType::kNodeDeleted, path));
    } else if (node->stat().mzxid > w.relative_zxid) {
      out.push_back(make_notification(watcher, EventType::kNodeDataChanged, path));
    } else {
      watches.watch_data(path, watcher);
    }
  }
  for (const std::string& path : w.exist_watches) {
    if (tree.exists(path)) {
      out.push_back(make_notification(watcher, EventType::kNodeCreated, path));
    } else {
      watches.watch_data(path, watcher);
    }
  }
  for (const std::string& path : w.child_watches) {
    const Node* node = tree.find(path);
    if (node == nullptr) {
      out.push_back(make_notification(watcher, EventType::kNodeDeleted, path));
    } else if (node->stat().pzxid > w.relative_zxid) {
      out.push_back(make_notification(watcher, EventType::kNodeChildrenChanged, path));
    } else {
      watches.watch_children(path, watcher);
    }
  }
  // Persistent watches are re-registered without catch-up events.
  for (const std::string& path : w.persistent_watches) {
    watches.watch_persistent(path, watcher, zk::wire::AddWatchMode::kPersistent);
  }
  for (const std::string& path : w.persistent_recursive_watches) {
    watches.watch_persistent(path, watcher, zk::wire::AddWatchMode::kPersistentRecursive);
  }
  return out;
}

}  // namespace zkd::tree
