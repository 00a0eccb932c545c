// SPDX-License-Identifier: Apache-2.0
// The watch tables and Apache's trigger rules (§9.3, §9.4 of
// docs/wire-protocol.md; DataTree + WatchManager in Apache): one-shot data and child
// watches, and persistent / persistent-recursive watches (addWatch). Each
// change appends its events to `out` in the order they must be sent; one
// event per watcher per change, however many of its watches match (Apache
// collects a set of connections per trigger), in ascending WatcherId order.
// Modes of one connection on one path coexist: a one-shot watch fires and
// goes, a persistent one on the same path stays (Apache 3.9; 3.8 lets the
// last watch set overwrite the mode, docs/apache-behaviour.md). Not
// thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "zkd/tree/ids.h"
#include "zkd/tree/persistent_watches.h"
#include "zkd/tree/results.h"
#include "zkd/tree/watch_table.h"
#include "zkd/tree/watch_table_view.h"

namespace zkd::tree {

class WatchManager {
 public:
  // getData and exists watches (exists also on missing nodes).
  void watch_data(std::string_view path, WatcherId watcher) { data_.add(path, watcher); }
  // getChildren / getChildren2 watches.
  void watch_children(std::string_view path, WatcherId watcher) { children_.add(path, watcher); }
  // addWatch: kPersistent fires like a data plus a child watch on `path`;
  // kPersistentRecursive fires NodeCreated, NodeDeleted and NodeDataChanged
  // for `path` and every descendant, never NodeChildrenChanged. Neither is
  // removed by firing, nor when the node is deleted.
  void watch_persistent(std::string_view path, WatcherId watcher, zk::wire::AddWatchMode mode) {
    persistent_.add(path, watcher, mode == zk::wire::AddWatchMode::kPersistentRecursive);
  }
  // removeWatches (18): kChildren / kData remove the one-shot child / data
  // watch, kAny those and the persistent ones. Whether any was removed
  // (otherwise the reply is NOWATCHER).
  bool remove(std::string_view path, WatcherId watcher, zk::wire::WatcherType type);
  // checkWatches (17): whether `watcher` holds a watch of `type` on `path`
  // (the same kinds remove() would remove).
  bool contains(std::string_view path, WatcherId watcher, zk::wire::WatcherType type) const;
  // Forgets every watch of a connection.
  void remove_watcher(WatcherId watcher);
  // Whether deleting `path` would fire an event on `path` itself.
  bool watched(std::string_view path) const {
    return data_.watched(path) || children_.watched(path) || persistent_.reaches(path);
  }

  // The ACLs are those of the node and of its parent, carried by the events
  // for delivery (Notification::acl).
  // create `path`: NodeCreated(path) to its data, persistent and recursive
  // watchers, then NodeChildrenChanged(parent) to the parent's child and
  // persistent watchers.
  void node_created(std::string_view path, const zk::wire::ACLs& acl,
                    const zk::wire::ACLs& parent_acl, std::vector<Notification>& out);
  // delete `path`: NodeDeleted(path) to its data, child, persistent and
  // recursive watchers, then NodeChildrenChanged(parent) as for create.
  void node_deleted(std::string_view path, const zk::wire::ACLs& acl,
                    const zk::wire::ACLs& parent_acl, std::vector<Notification>& out);
  // setData `path`: NodeDataChanged(path) to its data, persistent and
  // recursive watchers.
  void data_changed(std::string_view path, const zk::wire::ACLs& acl,
                    std::vector<Notification>& out);

  // The tables as Apache 3.8 reports them (watch_table_view.h).
  WatchTableView data_table() const { return {data_, persistent_}; }
  WatchTableView child_table() const { return {children_, persistent_}; }

 private:
  // Events of `type` on `path` to `one_shot` (already taken from their
  // tables) and the persistent watchers the event reaches.
  void fire(std::vector<WatcherId> one_shot, zk::wire::EventType type, std::string_view path,
            const zk::wire::ACLs& acl, std::vector<Notification>& out) const;

  WatchTable data_;
  WatchTable children_;
  PersistentWatches persistent_;
};

// An event for `watcher` (state SyncConnected).
Notification make_notification(WatcherId watcher, zk::wire::EventType type, std::string_view path);

}  // namespace zkd::tree
