// SPDX-License-Identifier: Apache-2.0
// WatchRegistry: the client-side watch tables (Java's ZKWatchManager). A pure
// data structure; not thread-safe (owned by the session and used on its
// executor only).
//
// Five tables, keyed by client path (chroot stripped):
//   data      - getData watches, and exists watches set on a node that existed
//   exist     - exists watches set on a node that did not exist
//   child     - getChildren / getChildren2 watches
//   persistent, recursive - addWatch watches (§9.4), never removed by events
// A notification removes and returns every one-shot callback it triggers:
//   NodeCreated, NodeDataChanged -> data + exist
//   NodeDeleted                  -> data + exist + child
//   NodeChildrenChanged          -> child
// and also reaches, without removing them, the persistent callbacks of the
// path and, except NodeChildrenChanged, the recursive ones of the path and
// its ancestors.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "libzk/client/events.h"
#include "libzk/wire/protocol.h"

namespace zk::client {

enum class WatchKind { kData, kExist, kChild, kPersistent, kPersistentRecursive };

class WatchRegistry {
 public:
  void add(WatchKind kind, const std::string& path, WatchCallback callback);

  // The callbacks a notification of `type` on `path` runs: the one-shot ones
  // (removed), in registration order per table (data, exist, child), then
  // copies of the persistent and recursive ones (kept).
  std::vector<WatchCallback> take(zk::wire::EventType type, const std::string& path);

  // Removes every watch, returning (path, callback) pairs; used when the
  // session ends so that each watch still fires exactly once more.
  std::vector<std::pair<std::string, WatchCallback>> take_all();

  // The watches removeWatches of `type` removes from `path` (Java's
  // ZKWatchManager.removeWatcher): kChildren the child table, kData the data
  // and exist tables, kAny those and the persistent ones. Each comes with the
  // event it gets: ChildWatchRemoved, DataWatchRemoved, PersistentWatchRemoved.
  std::vector<std::pair<zk::wire::EventType, WatchCallback>> remove(const std::string& path,
                                                                    zk::wire::WatcherType type);
  // Whether removeWatches of `type` on `path` has anything to check or
  // remove here: as remove(), but kChildren and kData also count persistent
  // watches (Java's ZKWatchManager.containsWatcher).
  bool contains(const std::string& path, zk::wire::WatcherType type) const;

  // Paths with at least one watch in a table, sorted; for setWatches.
  std::vector<std::string> paths(WatchKind kind) const;

  bool empty() const;
  bool has_persistent() const { return !persistent_.empty() || !recursive_.empty(); }
  size_t size() const;

 private:
  using Table = std::map<std::string, std::vector<WatchCallback>>;
  Table& table(WatchKind kind);
  const Table& table(WatchKind kind) const;
  static void move_out(Table& t, const std::string& path, std::vector<WatchCallback>& out);

  Table data_;
  Table exist_;
  Table child_;
  Table persistent_;
  Table recursive_;
};

}  // namespace zk::client
