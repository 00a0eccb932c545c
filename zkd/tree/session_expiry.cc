// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/session_expiry.h"

namespace zkd::tree {

void SessionExpiry::touch(SessionId session, int64_t now_ms, int64_t timeout_ms) {
  int64_t at = ((now_ms + timeout_ms) / tick_ms_ + 1) * tick_ms_;
  auto it = expiry_.find(session);
  if (it != expiry_.end()) {
    if (it->second == at) return;
    auto bucket = buckets_.find(it->second);
    bucket->second.erase(session);
    if (bucket->second.empty()) buckets_.erase(bucket);
    it->second = at;
  } else {
    expiry_.emplace(session, at);
  }
  buckets_[at].insert(session);
}

void SessionExpiry::remove(SessionId session) {
  auto it = expiry_.find(session);
  if (it == expiry_.end()) return;
  auto bucket = buckets_.find(it->second);
  bucket->second.erase(session);
  if (bucket->second.empty()) buckets_.erase(bucket);
  expiry_.erase(it);
}

std::vector<SessionId> SessionExpiry::expired(int64_t now_ms) {
  std::vector<SessionId> out;
  while (!buckets_.empty() && buckets_.begin()->first <= now_ms) {
    for (SessionId s : buckets_.begin()->second) {
      out.push_back(s);
      expiry_.erase(s);
    }
    buckets_.erase(buckets_.begin());
  }
  return out;
}

std::optional<int64_t> SessionExpiry::next_expiry() const {
  if (buckets_.empty()) return std::nullopt;
  return buckets_.begin()->first;
}

std::optional<int64_t> SessionExpiry::expiry_of(SessionId session) const {
  auto it = expiry_.find(session);
  if (it == expiry_.end()) return std::nullopt;
  return it->second;
}

}  // namespace zkd::tree
