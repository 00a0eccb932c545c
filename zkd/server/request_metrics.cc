// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/request_metrics.h"

#include "libzk/wire/jute.h"
#include "libzk/wire/op_table.h"

namespace zkd::server {

using zk::wire::EventType;
using zk::wire::OpCode;

bool is_update(OpCode op) {
  return zk::wire::op_kind(op) == zk::wire::OpKind::kWrite || op == OpCode::kCreateSession ||
         op == OpCode::kCloseSession || op == OpCode::kReconfig;
}

std::string_view request_path(std::string_view body) {
  zk::wire::Reader r(body);
  const int32_t size = r.int32();
  if (!r.ok() || size <= 0 || static_cast<size_t>(size) > r.remaining()) return {};
  return r.rest().substr(0, static_cast<size_t>(size));
}

void record_read(Metrics& m, OpCode op, std::string_view request_body, size_t response_bytes) {
  if (op == OpCode::kMultiRead || op == OpCode::kSync) return;  // no path first
  const std::string_view ns = top_namespace(request_path(request_body));
  if (!ns.empty()) m.read_per_namespace.record(ns, static_cast<int64_t>(response_bytes));
}

void record_write(Metrics& m, OpCode op, std::string_view request_body) {
  if (zk::wire::op_kind(op) != zk::wire::OpKind::kWrite || op == OpCode::kMulti) return;
  const std::string_view path = request_path(request_body);
  const std::string_view ns = top_namespace(path);
  if (ns.empty()) return;
  int64_t bytes = 0;
  if (op == OpCode::kCreate || op == OpCode::kCreate2 || op == OpCode::kCreateContainer ||
      op == OpCode::kCreateTTL || op == OpCode::kSetData) {
    zk::wire::Reader r(request_body.substr(4 + path.size()));
    const int32_t size = r.int32();
    if (r.ok() && size > 0) bytes = size;
  }
  m.write_per_namespace.record(ns, bytes);
}

namespace {

// The summary of the watches one event of `type` fired; null for none.
Summary* fired_watches(Metrics& m, EventType type) {
  switch (type) {
    case EventType::kNodeCreated:
      return &m.node_created_watch_count;
    case EventType::kNodeDeleted:
      return &m.node_deleted_watch_count;
    case EventType::kNodeDataChanged:
      return &m.node_changed_watch_count;
    case EventType::kNodeChildrenChanged:
      return &m.node_children_watch_count;
    default:
      return nullptr;
  }
}

}  // namespace

void record_fired_watches(Metrics& m, const std::vector<tree::Notification>& notifications) {
  size_t i = 0;
  while (i < notifications.size()) {
    const auto& event = notifications[i].event;
    size_t j = i + 1;
    while (j < notifications.size() && notifications[j].event.type == event.type &&
           notifications[j].event.path == event.path) {
      ++j;
    }
    if (Summary* summary = fired_watches(m, event.type)) {
      summary->record(static_cast<int64_t>(j - i));
    }
    i = j;
  }
}

}  // namespace zkd::server
