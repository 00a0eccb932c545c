// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/watch_registry.h"

namespace zk::client {

using zk::wire::EventType;
using zk::wire::WatcherType;

WatchRegistry::Table& WatchRegistry::table(WatchKind kind) {
  switch (kind) {
    case WatchKind::kData:
      return data_;
    case WatchKind::kExist:
      return exist_;
    case WatchKind::kPersistent:
      return persistent_;
    case WatchKind::kPersistentRecursive:
      return recursive_;
    case WatchKind::kChild:
      break;
  }
  return child_;
}

const WatchRegistry::Table& WatchRegistry::table(WatchKind kind) const {
  return const_cast<WatchRegistry*>(this)->table(kind);
}

void WatchRegistry::add(WatchKind kind, const std::string& path, WatchCallback callback) {
  table(kind)[path].push_back(std::move(callback));
}

void WatchRegistry::move_out(Table& t, const std::string& path, std::vector<WatchCallback>& out) {
  auto it = t.find(path);
  if (it == t.end()) return;
  for (auto& cb : it->second) out.push_back(std::move(cb));
  t.erase(it);
}

namespace {

void copy_out(const std::map<std::string, std::vector<WatchCallback>>& t, const std::string& path,
              std::vector<WatchCallback>& out) {
  auto it = t.find(path);
  if (it != t.end()) out.insert(out.end(), it->second.begin(), it->second.end());
}

}  // namespace

std::vector<WatchCallback> WatchRegistry::take(EventType type, const std::string& path) {
  std::vector<WatchCallback> out;
  switch (type) {
    case EventType::kNodeCreated:
    case EventType::kNodeDataChanged:
      move_out(data_, path, out);
      move_out(exist_, path, out);
      break;
    case EventType::kNodeDeleted:
      move_out(data_, path, out);
      move_out(exist_, path, out);
      move_out(child_, path, out);
      break;
    case EventType::kNodeChildrenChanged:
      move_out(child_, path, out);
      break;
    default:  // kNone and the client-local *WatchRemoved types
      return out;
  }
  copy_out(persistent_, path, out);
  if (type == EventType::kNodeChildrenChanged || recursive_.empty()) return out;
  for (std::string p = path;;) {
    copy_out(recursive_, p, out);
    if (p.size() <= 1) break;
    const size_t slash = p.rfind('/');
    p.resize(slash == 0 ? 1 : slash);
  }
  return out;
}

std::vector<std::pair<std::string, WatchCallback>> WatchRegistry::take_all() {
  std::vector<std::pair<std::string, WatchCallback>> out;
  for (Table* t : {&data_, &exist_, &child_, &persistent_, &recursive_}) {
    for (auto& [path, callbacks] : *t) {
      for (auto& cb : callbacks) out.emplace_back(path, std::move(cb));
    }
    t->clear();
  }
  return out;
}

std::vector<std::pair<EventType, WatchCallback>> WatchRegistry::remove(const std::string& path,
                                                                       WatcherType type) {
  std::vector<std::pair<EventType, WatchCallback>> out;
  auto remove_from = [&](Table& t, EventType event) {
    std::vector<WatchCallback> callbacks;
    move_out(t, path, callbacks);
    for (auto& cb : callbacks) out.emplace_back(event, std::move(cb));
  };
  if (type == WatcherType::kChildren || type == WatcherType::kAny) {
    remove_from(child_, EventType::kChildWatchRemoved);
  }
  if (type == WatcherType::kData || type == WatcherType::kAny) {
    remove_from(data_, EventType::kDataWatchRemoved);
    remove_from(exist_, EventType::kDataWatchRemoved);
  }
  if (type == WatcherType::kAny) {
    remove_from(persistent_, EventType::kPersistentWatchRemoved);
    remove_from(recursive_, EventType::kPersistentWatchRemoved);
  }
  return out;
}

bool WatchRegistry::contains(const std::string& path, WatcherType type) const {
  auto in = [&path](const Table& t) { return t.contains(path); };
  const bool persistent = in(persistent_) || in(recursive_);
  switch (type) {
    case WatcherType::kChildren:
      return in(child_) || persistent;
    case WatcherType::kData:
      return in(data_) || in(exist_) || persistent;
    case WatcherType::kAny:
      return in(child_) || in(data_) || in(exist_) || persistent;
  }
  return false;
}

std::vector<std::string> WatchRegistry::paths(WatchKind kind) const {
  std::vector<std::string> out;
  for (const auto& [path, callbacks] : table(kind)) out.push_back(path);
  return out;
}

bool WatchRegistry::empty() const {
  return data_.empty() && exist_.empty() && child_.empty() && persistent_.empty() &&
         recursive_.empty();
}

size_t WatchRegistry::size() const {
  size_t n = 0;
  for (const Table* t : {&data_, &exist_, &child_, &persistent_, &recursive_}) {
    for (const auto& [path, callbacks] : *t) n += callbacks.size();
  }
  return n;
}

}  // namespace zk::client
