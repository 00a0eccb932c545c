// SPDX-License-Identifier: Apache-2.0
// Apache's large-request budget (largeRequestThreshold, largeRequestMaxBytes):
// a request longer than the threshold is large, and all large requests in
// process together may hold at most max_bytes; one that would exceed that
// is refused, and the server closes its connection.
//
// Apache gives a request's bytes back when that request finishes. zkd gives
// a connection's back once it has nothing in process (settle()), or when
// the budget would be exceeded and the connection turns out to be idle by
// then: never later than Apache, and with no bookkeeping per request.
//
// Threading: one owner (the state thread).
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>

#include "zkd/net/client_connection.h"

namespace zkd::server {

class LargeRequestBudget {
 public:
  // `threshold` -1: no request is large.
  LargeRequestBudget(int32_t threshold, int32_t max_bytes)
      : threshold_(threshold), max_bytes_(max_bytes) {}

  // Whether a request of `size` bytes is large (never, with threshold -1).
  bool large(int64_t size) const { return threshold_ >= 0 && size > threshold_; }
  // Whether connection `id` holds bytes of large requests.
  bool holds(net::ConnectionId id) const { return !held_.empty() && held_.count(id) != 0; }
  // Whether a request of `size` bytes on connection `id` may be taken; a
  // large one that may holds its bytes until settle(id). `busy` says whether
  // a connection still has requests in process.
  bool admit(net::ConnectionId id, int64_t size,
             const std::function<bool(net::ConnectionId)>& busy);
  // Connection `id` has nothing in process, or is gone: its bytes go back.
  void settle(net::ConnectionId id) {
    if (held_.empty()) return;
    auto it = held_.find(id);
    if (it == held_.end()) return;
    bytes_ -= it->second;
    held_.erase(it);
  }
  // The bytes large requests in process hold.
  int64_t bytes() const { return bytes_; }

 private:
  int32_t threshold_;
  int64_t max_bytes_;
  int64_t bytes_ = 0;
  std::unordered_map<net::ConnectionId, int64_t> held_;
};

}  // namespace zkd::server
