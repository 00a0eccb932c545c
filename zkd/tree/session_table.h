// SPDX-License-Identifier: Apache-2.0
// The replicated session table: the sessions createSession txns opened and
// closeSession txns have not closed yet, with their negotiated timeouts.
// Liveness is not tracked here (see session_expiry.h). Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "zkd/tree/ids.h"

namespace zkd::tree {

class SessionTable {
 public:
  // Adds the session or replaces its timeout (a replayed createSession).
  void open(SessionId session, int32_t timeout_ms) { timeouts_[session] = timeout_ms; }
  void close(SessionId session) { timeouts_.erase(session); }

  bool contains(SessionId session) const { return timeouts_.contains(session); }
  std::optional<int32_t> timeout(SessionId session) const;
  // All open sessions, sorted.
  std::vector<SessionId> ids() const;
  size_t size() const { return timeouts_.size(); }

 private:
  std::unordered_map<SessionId, int32_t> timeouts_;
};

}  // namespace zkd::tree
