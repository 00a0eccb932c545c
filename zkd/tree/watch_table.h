// SPDX-License-Identifier: Apache-2.0
// One of the two standard watch tables (§9.3 of docs/wire-protocol.md): which
// connections watch which paths. A (watcher, path) pair is in a table at most
// once; watches are one-shot, so take() removes every watcher of a path.
// Not thread-safe.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "zkd/tree/ids.h"

namespace zkd::tree {

class WatchTable {
 public:
  void add(std::string_view path, WatcherId watcher);
  // Removes the watches on `path` and returns their watchers, sorted.
  std::vector<WatcherId> take(std::string_view path);
  // Removes one watch; whether it was there.
  bool remove(std::string_view path, WatcherId watcher);
  // Forgets every watch of `watcher`.
  void remove_watcher(WatcherId watcher);

  bool contains(std::string_view path, WatcherId watcher) const;
  // Whether anyone watches `path`.
  bool watched(std::string_view path) const { return by_path_.find(path) != by_path_.end(); }
  size_t size() const { return entries_; }  // (watcher, path) pairs
  size_t path_count() const { return by_path_.size(); }
  size_t watcher_count() const { return by_watcher_.size(); }
  // Paths `watcher` watches, sorted.
  std::vector<std::string> paths_of(WatcherId watcher) const;
  // Every watched path with its watchers, both sorted.
  std::vector<std::pair<std::string, std::vector<WatcherId>>> by_path() const;

 private:
  struct PathHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::set<WatcherId>, PathHash, std::equal_to<>> by_path_;
  std::unordered_map<WatcherId, std::set<std::string, std::less<>>> by_watcher_;
  size_t entries_ = 0;
};

}  // namespace zkd::tree
