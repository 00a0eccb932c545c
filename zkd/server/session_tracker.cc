// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/session_tracker.h"

namespace zkd::server {

void SessionTracker::touch(SessionId session, int32_t timeout_ms, int64_t now_ms) {
  int64_t at = round_up(now_ms + timeout_ms);
  auto [it, inserted] = sessions_.try_emplace(session);
  Entry& e = it->second;
  e.timeout_ms = timeout_ms;
  if (!inserted) {
    if (e.expires_at == at) return;
    auto b = buckets_.find(e.expires_at);
    if (b != buckets_.end()) {
      b->second.erase(session);
      if (b->second.empty()) buckets_.erase(b);
    }
  }
  e.expires_at = at;
  buckets_[at].insert(session);
}

bool SessionTracker::touch(SessionId session, int64_t now_ms) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return false;
  touch(session, it->second.timeout_ms, now_ms);
  return true;
}

void SessionTracker::remove(SessionId session) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  auto b = buckets_.find(it->second.expires_at);
  if (b != buckets_.end()) {
    b->second.erase(session);
    if (b->second.empty()) buckets_.erase(b);
  }
  sessions_.erase(it);
}

std::optional<int32_t> SessionTracker::timeout(SessionId session) const {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return std::nullopt;
  return it->second.timeout_ms;
}

std::vector<SessionTracker::SessionId> SessionTracker::expire(int64_t now_ms) {
  std::vector<SessionId> out;
  while (!buckets_.empty() && buckets_.begin()->first <= now_ms) {
    for (SessionId s : buckets_.begin()->second) {
      out.push_back(s);
      sessions_.erase(s);
    }
    buckets_.erase(buckets_.begin());
  }
  return out;
}

std::vector<std::pair<int64_t, std::vector<SessionTracker::SessionId>>> SessionTracker::buckets()
    const {
  std::vector<std::pair<int64_t, std::vector<SessionId>>> out;
  for (const auto& [at, set] : buckets_)
    out.emplace_back(at, std::vector<SessionId>(set.begin(), set.end()));
  return out;
}

}  // namespace zkd::server
