// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/session_table.h"

#include <algorithm>

namespace zkd::tree {

std::optional<int32_t> SessionTable::timeout(SessionId session) const {
  auto it = timeouts_.find(session);
  if (it == timeouts_.end()) return std::nullopt;
  return it->second;
}

std::vector<SessionId> SessionTable::ids() const {
  std::vector<SessionId> out;
  out.reserve(timeouts_.size());
  for (const auto& entry : timeouts_) out.push_back(entry.first);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace zkd::tree
