// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/watch_table.h"

#include <algorithm>

namespace zkd::tree {

void WatchTable::add(std::string_view path, WatcherId watcher) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) it = by_path_.emplace(std::string(path), std::set<WatcherId>{}).first;
  if (!it->second.insert(watcher).second) return;
  by_watcher_[watcher].emplace(path);
  ++entries_;
}

std::vector<WatcherId> WatchTable::take(std::string_view path) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return {};
  std::vector<WatcherId> watchers(it->second.begin(), it->second.end());
  for (WatcherId w : watchers) {
    auto paths = by_watcher_.find(w);
    paths->second.erase(paths->second.find(path));
    if (paths->second.empty()) by_watcher_.erase(paths);
  }
  entries_ -= watchers.size();
  by_path_.erase(it);
  return watchers;
}

bool WatchTable::remove(std::string_view path, WatcherId watcher) {
  auto it = by_path_.find(path);
  if (it == by_path_.end() || it->second.erase(watcher) == 0) return false;
  if (it->second.empty()) by_path_.erase(it);
  auto paths = by_watcher_.find(watcher);
  paths->second.erase(paths->second.find(path));
  if (paths->second.empty()) by_watcher_.erase(paths);
  --entries_;
  return true;
}

void WatchTable::remove_watcher(WatcherId watcher) {
  auto it = by_watcher_.find(watcher);
  if (it == by_watcher_.end()) return;
  for (const std::string& path : it->second) {
    auto watchers = by_path_.find(path);
    watchers->second.erase(watcher);
    if (watchers->second.empty()) by_path_.erase(watchers);
  }
  entries_ -= it->second.size();
  by_watcher_.erase(it);
}

bool WatchTable::contains(std::string_view path, WatcherId watcher) const {
  auto it = by_path_.find(path);
  return it != by_path_.end() && it->second.contains(watcher);
}

std::vector<std::string> WatchTable::paths_of(WatcherId watcher) const {
  auto it = by_watcher_.find(watcher);
  if (it == by_watcher_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

std::vector<std::pair<std::string, std::vector<WatcherId>>> WatchTable::by_path() const {
  std::vector<std::pair<std::string, std::vector<WatcherId>>> out;
  out.reserve(by_path_.size());
  for (const auto& [path, watchers] : by_path_) {
    out.emplace_back(path, std::vector<WatcherId>(watchers.begin(), watchers.end()));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace zkd::tree
