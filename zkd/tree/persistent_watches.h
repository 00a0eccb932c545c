// SPDX-License-Identifier: Apache-2.0
// The persistent and persistent-recursive watches of addWatch (106; §9.4 of
// docs/wire-protocol.md): which connections watch which paths, and how. Unlike
// the one-shot tables (watch_table.h) nothing is removed when it fires. A
// connection may hold both modes on one path. Matching an event walks the
// path's ancestors only while some recursive watch exists, so a change costs
// one lookup when there is none. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "zkd/tree/ids.h"

namespace zkd::tree {

class PersistentWatches {
 public:
  void add(std::string_view path, WatcherId watcher, bool recursive);
  // Removes both modes of `watcher` on `path`; whether it had one.
  bool remove(std::string_view path, WatcherId watcher);
  // Forgets every watch of `watcher`.
  void remove_watcher(WatcherId watcher);

  bool contains(std::string_view path, WatcherId watcher) const;
  // Appends the watchers an event on `path` reaches (unsorted; a watcher may
  // appear twice): persistent watches on `path` for every event; recursive
  // ones on `path` or an ancestor, except for NodeChildrenChanged
  // (`children_changed`), which they never get.
  void collect(std::string_view path, bool children_changed, std::vector<WatcherId>& out) const;
  // Whether a NodeDeleted of `path` would reach anyone.
  bool reaches(std::string_view path) const;

  bool empty() const { return by_watcher_.empty(); }
  // Every (path, watcher) pair, sorted.
  std::vector<std::pair<std::string, WatcherId>> pairs() const;
  // Paths `watcher` watches, sorted.
  std::vector<std::string> paths_of(WatcherId watcher) const;

 private:
  static constexpr uint8_t kPersistent = 1;
  static constexpr uint8_t kRecursive = 2;
  struct PathHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // path -> watcher -> mode bits
  std::unordered_map<std::string, std::map<WatcherId, uint8_t>, PathHash, std::equal_to<>> by_path_;
  std::unordered_map<WatcherId, std::set<std::string, std::less<>>> by_watcher_;
  size_t recursive_ = 0;  // (path, watcher) pairs with the recursive bit
};

}  // namespace zkd::tree
