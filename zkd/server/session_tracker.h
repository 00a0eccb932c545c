// SPDX-License-Identifier: Apache-2.0
// Session liveness, Apache's way (§2.4 of docs/wire-protocol.md,
// SessionTrackerImpl + ExpiryQueue): each session sits in a bucket keyed by
// its expiry time rounded up to the next multiple of tickTime; every packet
// from the session moves it to a later bucket; a bucket whose time has come
// expires all its sessions at once. Pure: times (ms, any monotonic origin)
// are passed in; the server drives expire() from a tickTime timer.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace zkd::server {

class SessionTracker {
 public:
  using SessionId = int64_t;

  explicit SessionTracker(int64_t tick_ms) : tick_ms_(tick_ms > 0 ? tick_ms : 1) {}

  // Adds the session or refreshes it: it now expires `timeout_ms` after
  // `now_ms`, rounded up to the next tick.
  void touch(SessionId session, int32_t timeout_ms, int64_t now_ms);
  // Refreshes a tracked session with its current timeout; false if unknown.
  bool touch(SessionId session, int64_t now_ms);
  void remove(SessionId session);
  bool contains(SessionId session) const { return sessions_.count(session) != 0; }
  std::optional<int32_t> timeout(SessionId session) const;
  size_t size() const { return sessions_.size(); }

  // Removes and returns every session whose bucket time is <= now_ms, oldest first.
  std::vector<SessionId> expire(int64_t now_ms);

  // Buckets in time order (for dump): expiry time -> sessions, sorted.
  std::vector<std::pair<int64_t, std::vector<SessionId>>> buckets() const;

 private:
  struct Entry {
    int32_t timeout_ms = 0;
    int64_t expires_at = 0;
  };
  int64_t round_up(int64_t t) const { return (t / tick_ms_ + 1) * tick_ms_; }

  int64_t tick_ms_;
  std::unordered_map<SessionId, Entry> sessions_;
  std::map<int64_t, std::set<SessionId>> buckets_;
};

}  // namespace zkd::server
