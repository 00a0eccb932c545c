// WatchRegistry: the client-side tables of one-shot watches (Java's
// ZKWatchManager). A pure data structure; not thread-safe (owned by the
// session and used on its executor only).
//
// Three tables, keyed by client path (chroot stripped):
//   data  - getData watches, and exists watches set on a node that existed
//   exist - exists watches set on a node that did not exist
//   child - getChildren / getChildren2 watches
// An event removes and returns every callback it triggers (each fires once):
//   NodeCreated, NodeDataChanged -> data + exist
//   NodeDeleted                  -> data + exist + child
//   NodeChildrenChanged          -> child
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "libzk/client/events.h"
#include "libzk/wire/protocol.h"

namespace zk::client {

enum class WatchKind { kData, kExist, kChild };

class WatchRegistry {
 public:
  void add(WatchKind kind, const std::string& path, WatchCallback callback);

  // Removes and returns, in registration order per table (data, exist,
  // child), the callbacks that an event of `type` on `path` triggers.
  std::vector<WatchCallback> take(zk::wire::EventType type, const std::string& path);

  // Removes every watch, returning (path, callback) pairs; used when the
  // session ends so that each watch still fires exactly once.
  std::vector<std::pair<std::string, WatchCallback>> take_all();

  // Paths with at least one watch in a table, sorted; for setWatches.
  std::vector<std::string> paths(WatchKind kind) const;

  bool empty() const { return data_.empty() && exist_.empty() && child_.empty(); }
  size_t size() const;

 private:
  using Table = std::map<std::string, std::vector<WatchCallback>>;
  Table& table(WatchKind kind);
  const Table& table(WatchKind kind) const;
  static void move_out(Table& t, const std::string& path, std::vector<WatchCallback>& out);

  Table data_;
  Table exist_;
  Table child_;
};

}  // namespace zk::client
