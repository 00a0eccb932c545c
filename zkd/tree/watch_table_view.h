// SPDX-License-Identifier: Apache-2.0
// One of Apache's two watch tables as its four-letter words and metrics see
// it (§12.2, §12.3 of docs/wire-protocol.md): in Apache 3.8 addWatch puts a
// persistent or persistent-recursive watch into both the data and the child
// table, so each table reports its one-shot watches plus every persistent
// watch, a (path, connection) pair counting once. Refers to both tables: must
// not outlive them.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "zkd/tree/ids.h"
#include "zkd/tree/persistent_watches.h"
#include "zkd/tree/watch_table.h"

namespace zkd::tree {

class WatchTableView {
 public:
  WatchTableView(const WatchTable& one_shot, const PersistentWatches& persistent)
      : one_shot_(one_shot), persistent_(persistent) {}

  size_t size() const;           // (watcher, path) pairs (zk_watch_count's share; wchs total)
  size_t path_count() const;     // distinct paths (wchs)
  size_t watcher_count() const;  // distinct watchers (wchs)
  // Paths `watcher` watches, sorted (wchc).
  std::vector<std::string> paths_of(WatcherId watcher) const;
  // Every watched path with its watchers, both sorted (wchp).
  std::vector<std::pair<std::string, std::vector<WatcherId>>> by_path() const;

 private:
  const WatchTable& one_shot_;
  const PersistentWatches& persistent_;
};

}  // namespace zkd::tree
