#include "libzk/client/watch_registry.h"

namespace zk::client {

using zk::wire::EventType;

WatchRegistry::Table& WatchRegistry::table(WatchKind kind) {
  switch (kind) {
    case WatchKind::kData:
      return data_;
    case WatchKind::kExist:
      return exist_;
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
    case EventType::kNone:
      break;
  }
  return out;
}

std::vector<std::pair<std::string, WatchCallback>> WatchRegistry::take_all() {
  std::vector<std::pair<std::string, WatchCallback>> out;
  for (Table* t : {&data_, &exist_, &child_}) {
    for (auto& [path, callbacks] : *t) {
      for (auto& cb : callbacks) out.emplace_back(path, std::move(cb));
    }
    t->clear();
  }
  return out;
}

std::vector<std::string> WatchRegistry::paths(WatchKind kind) const {
  std::vector<std::string> out;
  for (const auto& [path, callbacks] : table(kind)) out.push_back(path);
  return out;
}

size_t WatchRegistry::size() const {
  size_t n = 0;
  for (const Table* t : {&data_, &exist_, &child_}) {
    for (const auto& [path, callbacks] : *t) n += callbacks.size();
  }
  return n;
}

}  // namespace zk::client
