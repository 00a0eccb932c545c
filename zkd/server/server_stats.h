// SPDX-License-Identifier: Apache-2.0
// The server's own counters, as srvr, stat and mntr print them: kept by the
// client side, the write path, the replica and the log's reports, read by the status view
// (status_view.h), reset by srst. State thread only.
#pragma once

#include <cstdint>

#include "zkd/view/latency_stats.h"
#include "zkd/view/metrics.h"

namespace zkd::server {

struct ServerStats {
  LatencyStats latency;  // request latency (ms)
  uint64_t packets_received = 0;
  uint64_t packets_sent = 0;
  uint64_t auth_failures = 0;
  int64_t trace_mask = 306;  // Apache's default (gtmk)
  int64_t started_steady_ms = 0;
  Metrics metrics;  // Apache's ServerMetrics (metrics.h)
};

}  // namespace zkd::server
