// SPDX-License-Identifier: Apache-2.0
// The server's own counters, as srvr, stat and mntr print them: kept by the
// client side and the log's reports, read by the status view
// (status_view.h), reset by srst. State thread only.
#pragma once

#include <cstdint>

#include "zkd/view/latency_stats.h"

namespace zkd::server {

struct ServerStats {
  LatencyStats latency;  // request latency (ms)
  uint64_t packets_received = 0;
  uint64_t packets_sent = 0;
  uint64_t auth_failures = 0;
  int64_t trace_mask = 306;  // Apache's default (gtmk)
  int64_t started_steady_ms = 0;
  LatencyStats fsync_ms;     // zk_*_fsynctime
  uint64_t logged_txns = 0;  // for zk_txns_per_fsync
  uint64_t fsyncs = 0;
};

}  // namespace zkd::server
