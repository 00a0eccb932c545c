// SPDX-License-Identifier: Apache-2.0
// Session liveness in Apache's way (SessionTrackerImpl + ExpiryQueue): each
// session sits in a bucket of width tickTime holding the sessions that expire
// at the bucket's end; a request or ping from the session moves it to the
// bucket of now + timeout, rounded up to the next tick boundary.
//
// Pure: the caller passes the time in (milliseconds on a monotonic clock) and
// turns what expired() returns into closeSession txns. This is local state of
// the serving replica, not replicated. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "zkd/tree/ids.h"

namespace zkd::tree {

class SessionExpiry {
 public:
  explicit SessionExpiry(int64_t tick_ms) : tick_ms_(tick_ms > 0 ? tick_ms : 1) {}

  // The session was heard from at `now_ms`: it expires at the end of the tick
  // that contains now_ms + timeout_ms (Apache's roundToNextInterval).
  void touch(SessionId session, int64_t now_ms, int64_t timeout_ms);
  // The session closed: stop tracking it.
  void remove(SessionId session);
  // Removes and returns the sessions whose expiry time is <= now_ms, in order
  // of expiry time, then id.
  std::vector<SessionId> expired(int64_t now_ms);
  // The earliest expiry time, for the caller's timer; nullopt when empty.
  std::optional<int64_t> next_expiry() const;
  // The time `session` expires at, if tracked.
  std::optional<int64_t> expiry_of(SessionId session) const;
  size_t size() const { return expiry_.size(); }

 private:
  int64_t tick_ms_;
  std::map<int64_t, std::set<SessionId>> buckets_;  // expiry time -> sessions
  std::unordered_map<SessionId, int64_t> expiry_;
};

}  // namespace zkd::tree
