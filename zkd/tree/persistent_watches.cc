// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/persistent_watches.h"

#include <algorithm>

namespace zkd::tree {
namespace {

// "/a/b" -> "/a" -> "/"; "/" has none. Paths are absolute (validated by the
// server before they reach the tree or come from a node's own path).
bool to_parent(std::string_view& path) {
  if (path.size() <= 1) return false;
  const size_t slash = path.rfind('/');
  path = slash == 0 ? path.substr(0, 1) : path.substr(0, slash);
  return true;
}

}  // namespace

void PersistentWatches::add(std::string_view path, WatcherId watcher, bool recursive) {
  auto it = by_path_.find(path);
  if (it == by_path_.end())
    it = by_path_.emplace(std::string(path), std::map<WatcherId, uint8_t>{}).first;
  uint8_t& modes = it->second[watcher];
  if (modes == 0) by_watcher_[watcher].emplace(path);
  const uint8_t bit = recursive ? kRecursive : kPersistent;
  if (recursive && (modes & kRecursive) == 0) ++recursive_;
  modes |= bit;
}

bool PersistentWatches::remove(std::string_view path, WatcherId watcher) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return false;
  auto entry = it->second.find(watcher);
  if (entry == it->second.end()) return false;
  if ((entry->second & kRecursive) != 0) --recursive_;
  it->second.erase(entry);
  if (it->second.empty()) by_path_.erase(it);
  auto paths = by_watcher_.find(watcher);
  paths->second.erase(paths->second.find(path));
  if (paths->second.empty()) by_watcher_.erase(paths);
  return true;
}

void PersistentWatches::remove_watcher(WatcherId watcher) {
  auto it = by_watcher_.find(watcher);
  if (it == by_watcher_.end()) return;
  for (const std::string& path : it->second) {
    auto watchers = by_path_.find(path);
    auto entry = watchers->second.find(watcher);
    if ((entry->second & kRecursive) != 0) --recursive_;
    watchers->second.erase(entry);
    if (watchers->second.empty()) by_path_.erase(watchers);
  }
  by_watcher_.erase(it);
}

bool PersistentWatches::contains(std::string_view path, WatcherId watcher) const {
  auto it = by_path_.find(path);
  return it != by_path_.end() && it->second.contains(watcher);
}

void PersistentWatches::collect(std::string_view path, bool children_changed,
                                std::vector<WatcherId>& out) const {
  if (auto it = by_path_.find(path); it != by_path_.end()) {
    for (const auto& [watcher, modes] : it->second) {
      if ((modes & kPersistent) != 0 || !children_changed) out.push_back(watcher);
    }
  }
  if (recursive_ == 0 || children_changed) return;
  for (std::string_view p = path; to_parent(p);) {
    auto it = by_path_.find(p);
    if (it == by_path_.end()) continue;
    for (const auto& [watcher, modes] : it->second) {
      if ((modes & kRecursive) != 0) out.push_back(watcher);
    }
  }
}

bool PersistentWatches::reaches(std::string_view path) const {
  if (by_path_.empty()) return false;
  std::vector<WatcherId> watchers;
  collect(path, false, watchers);
  return !watchers.empty();
}

std::vector<std::pair<std::string, WatcherId>> PersistentWatches::pairs() const {
  std::vector<std::pair<std::string, WatcherId>> out;
  for (const auto& [path, watchers] : by_path_) {
    for (const auto& [watcher, modes] : watchers) out.emplace_back(path, watcher);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> PersistentWatches::paths_of(WatcherId watcher) const {
  auto it = by_watcher_.find(watcher);
  if (it == by_watcher_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

}  // namespace zkd::tree
