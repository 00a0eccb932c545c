// SPDX-License-Identifier: Apache-2.0
// Request latency, min/avg/max in milliseconds, as Apache's ServerStats and
// ServerCnxn keep it for srvr, stat, cons and mntr.
#pragma once

#include <cstdint>
#include <limits>

namespace zkd::server {

class LatencyStats {
 public:
  void record(int64_t latency_ms) {
    if (latency_ms < 0) latency_ms = 0;
    if (latency_ms < min_) min_ = latency_ms;
    if (latency_ms > max_) max_ = latency_ms;
    total_ += latency_ms;
    ++count_;
    last_ = latency_ms;
  }
  void reset() { *this = LatencyStats{}; }

  int64_t min() const { return count_ == 0 ? 0 : min_; }
  int64_t max() const { return max_; }
  int64_t last() const { return last_; }
  int64_t count() const { return count_; }
  int64_t total() const { return total_; }
  // Server-wide average: a double (srvr prints it as Java does, e.g. "0.0").
  double average() const {
    return count_ == 0 ? 0.0 : static_cast<double>(total_) / static_cast<double>(count_);
  }
  // Per-connection average: integer division, as ServerCnxn.getAvgLatency.
  int64_t integer_average() const { return count_ == 0 ? 0 : total_ / count_; }

 private:
  int64_t min_ = std::numeric_limits<int64_t>::max();
  int64_t max_ = 0;
  int64_t total_ = 0;
  int64_t count_ = 0;
  int64_t last_ = 0;
};

}  // namespace zkd::server
