// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/large_requests.h"

#include <vector>

namespace zkd::server {

bool LargeRequestBudget::admit(net::ConnectionId id, int64_t size,
                               const std::function<bool(net::ConnectionId)>& busy) {
  if (!large(size)) return true;
  if (bytes_ + size > max_bytes_) {
    std::vector<net::ConnectionId> idle;
    for (const auto& [holder, held] : held_) {
      if (!busy(holder)) idle.push_back(holder);
    }
    for (net::ConnectionId holder : idle) settle(holder);
    if (bytes_ + size > max_bytes_) return false;
  }
  held_[id] += size;
  bytes_ += size;
  return true;
}

}  // namespace zkd::server
