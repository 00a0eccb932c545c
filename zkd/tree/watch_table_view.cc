// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/watch_table_view.h"

#include <algorithm>
#include <iterator>
#include <set>

namespace zkd::tree {

size_t WatchTableView::size() const {
  size_t n = one_shot_.size();
  for (const auto& [path, watcher] : persistent_.pairs()) {
    if (!one_shot_.contains(path, watcher)) ++n;
  }
  return n;
}

size_t WatchTableView::path_count() const {
  size_t n = one_shot_.path_count();
  std::string previous;
  bool first = true;
  for (const auto& [path, watcher] : persistent_.pairs()) {  // sorted: equal paths adjacent
    if (!first && path == previous) continue;
    first = false;
    previous = path;
    if (!one_shot_.watched(path)) ++n;
  }
  return n;
}

size_t WatchTableView::watcher_count() const {
  std::set<WatcherId> extra;
  for (const auto& [path, watcher] : persistent_.pairs()) {
    if (one_shot_.paths_of(watcher).empty()) extra.insert(watcher);
  }
  return one_shot_.watcher_count() + extra.size();
}

std::vector<std::string> WatchTableView::paths_of(WatcherId watcher) const {
  std::vector<std::string> a = one_shot_.paths_of(watcher);
  std::vector<std::string> b = persistent_.paths_of(watcher);
  std::vector<std::string> out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::vector<std::pair<std::string, std::vector<WatcherId>>> WatchTableView::by_path() const {
  std::vector<std::pair<std::string, std::vector<WatcherId>>> out = one_shot_.by_path();
  if (persistent_.empty()) return out;
  for (const auto& [path, watcher] : persistent_.pairs()) {
    auto it =
        std::lower_bound(out.begin(), out.end(), path,
                         [](const auto& entry, const std::string& p) { return entry.first < p; });
    if (it == out.end() || it->first != path) it = out.emplace(it, path, std::vector<WatcherId>{});
    auto& watchers = it->second;
    auto w = std::lower_bound(watchers.begin(), watchers.end(), watcher);
    if (w == watchers.end() || *w != watcher) watchers.insert(w, watcher);
  }
  return out;
}

}  // namespace zkd::tree
