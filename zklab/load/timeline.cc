// SPDX-License-Identifier: Apache-2.0
#include "zklab/load/timeline.h"

#include <algorithm>

#include "zklab/process/server_status.h"

namespace zk::lab {

int64_t LoadBucket::error_count() const {
  int64_t n = 0;
  for (const auto& [code, count] : errors) n += count;
  return n;
}

LoadBucket& LoadBucket::operator+=(const LoadBucket& other) {
  reads += other.reads;
  writes += other.writes;
  for (const auto& [code, count] : other.errors) errors[code] += count;
  return *this;
}

std::string_view event_kind_name(EventKind kind) {
  switch (kind) {
    case EventKind::kKill:
      return "kill";
    case EventKind::kPause:
      return "pause";
    case EventKind::kIsolate:
      return "isolate";
    case EventKind::kNewLeader:
      return "new leader";
    case EventKind::kRestart:
      return "restart";
    case EventKind::kResume:
      return "resume";
    case EventKind::kHeal:
      return "heal";
    case EventKind::kRejoin:
      return "rejoin";
    case EventKind::kRole:
      return "role";
    case EventKind::kTransfer:
      return "transfer";
  }
  return "?";
}

std::string describe(const TimelineEvent& event) {
  const std::string node = "node " + std::to_string(event.node);
  switch (event.kind) {
    case EventKind::kRole:
      return node + " " + event.role;
    case EventKind::kRejoin:
      return "rejoin " + node + (event.role.empty() ? "" : " (" + event.role + ")");
    default:
      return std::string(event_kind_name(event.kind)) + " " + node;
  }
}

bool role_serves(std::string_view role) {
  for (ServerMode mode : {ServerMode::kLeader, ServerMode::kFollower, ServerMode::kObserver,
                          ServerMode::kStandalone}) {
    if (role == server_mode_name(mode)) return true;
  }
  return false;
}

std::chrono::microseconds Timeline::end() const {
  return std::chrono::microseconds(bucket) * static_cast<int64_t>(buckets.size());
}

void Timeline::add(TimelineEvent event) {
  auto at = std::upper_bound(events.begin(), events.end(), event.at,
                             [](auto t, const TimelineEvent& e) { return t < e.at; });
  events.insert(at, std::move(event));
}

const TimelineEvent* Timeline::first(EventKind kind, std::chrono::microseconds from, int node,
                                     bool (*role_matches)(std::string_view)) const {
  for (const auto& e : events) {
    if (e.kind != kind || e.at < from || (node != 0 && e.node != node)) continue;
    if (role_matches != nullptr && !role_matches(e.role)) continue;
    return &e;
  }
  return nullptr;
}

Rates Timeline::rates(std::chrono::microseconds from, std::chrono::microseconds to) const {
  const std::chrono::microseconds width(bucket);
  if (width.count() <= 0) return {};
  // The first bucket that starts at or after `from`; the buckets that end by `to`.
  const int64_t first = (std::max<int64_t>(from.count(), 0) + width.count() - 1) / width.count();
  const int64_t last = std::min<int64_t>(to.count() / width.count(),
                                         static_cast<int64_t>(buckets.size()));  // exclusive
  if (last <= first) return {};
  LoadBucket sum;
  for (int64_t i = first; i < last; ++i) sum += buckets[static_cast<size_t>(i)];
  Rates r;
  r.seconds = std::chrono::duration<double>(width).count() * static_cast<double>(last - first);
  r.reads_per_s = static_cast<double>(sum.reads) / r.seconds;
  r.writes_per_s = static_cast<double>(sum.writes) / r.seconds;
  return r;
}

LoadBucket Timeline::totals() const {
  LoadBucket sum;
  for (const auto& b : buckets) sum += b;
  return sum;
}

}  // namespace zk::lab
