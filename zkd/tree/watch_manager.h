// The data and child watch tables and Apache's trigger rules (§9.3 of the wire
// reference; DataTree + WatchManager in Apache). Each change appends its
// events to `out` in the order they must be sent; watchers of one table get
// their events in ascending WatcherId order. Not thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "zkd/tree/ids.h"
#include "zkd/tree/results.h"
#include "zkd/tree/watch_table.h"

namespace zkd::tree {

class WatchManager {
 public:
  // getData and exists watches (exists also on missing nodes).
  void watch_data(std::string_view path, WatcherId watcher) { data_.add(path, watcher); }
  // getChildren / getChildren2 watches.
  void watch_children(std::string_view path, WatcherId watcher) { children_.add(path, watcher); }
  void remove_watcher(WatcherId watcher);
  // Whether a data or child watch is set on `path` (a delete would fire).
  bool watched(std::string_view path) const {
    return data_.watched(path) || children_.watched(path);
  }

  // The ACLs are those of the node and of its parent, carried by the events
  // for delivery (Notification::acl).
  // create `path`: NodeCreated(path) to its data watchers, then
  // NodeChildrenChanged(parent) to the parent's child watchers.
  void node_created(std::string_view path, const zk::wire::ACLs& acl,
                    const zk::wire::ACLs& parent_acl, std::vector<Notification>& out);
  // delete `path`: NodeDeleted(path) to its data and child watchers (one event
  // per watcher), then NodeChildrenChanged(parent) to the parent's child watchers.
  void node_deleted(std::string_view path, const zk::wire::ACLs& acl,
                    const zk::wire::ACLs& parent_acl, std::vector<Notification>& out);
  // setData `path`: NodeDataChanged(path) to its data watchers.
  void data_changed(std::string_view path, const zk::wire::ACLs& acl,
                    std::vector<Notification>& out);

  const WatchTable& data_table() const { return data_; }
  const WatchTable& child_table() const { return children_; }

 private:
  WatchTable data_;
  WatchTable children_;
};

// An event for `watcher` (state SyncConnected).
Notification make_notification(WatcherId watcher, zk::wire::EventType type, std::string_view path);

}  // namespace zkd::tree
