// SPDX-License-Identifier: Apache-2.0
// One of Apache's summaries (AvgMinMaxCounter, AvgMinMaxPercentileCounter):
// the count, sum, min and max of integer samples (milliseconds, bytes,
// sizes), and their quantiles from a log-linear histogram: exact below 8,
// then 8 buckets per power of two (an error of at most 1/16 of the value).
// Recording is a few integer operations and no allocation, so the state
// thread's hot path may record per request. Cumulative since the start or the
// last reset(), as Apache's mntr figures are until srst.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "zkd/view/latency_stats.h"

namespace zkd::server {

class Summary {
 public:
  void record(int64_t value) {
    if (value < 0) value = 0;
    totals_.record(value);
    ++buckets_[bucket(value)];
  }
  void reset() { *this = Summary{}; }

  int64_t count() const { return totals_.count(); }
  int64_t sum() const { return totals_.total(); }
  int64_t min() const { return totals_.min(); }
  int64_t max() const { return totals_.max(); }
  double average() const { return totals_.average(); }
  // The sample at quantile q (0..1): the middle of the bucket holding it,
  // kept within [min, max] (the greatest exactly); 0 with no samples.
  int64_t quantile(double q) const {
    const int64_t samples = count();
    const int64_t greatest = max();
    if (samples == 0) return 0;
    if (q < 0) q = 0;
    if (q > 1) q = 1;
    // The rank of the sample wanted, 1-based: ceil(q * count), at least 1.
    auto rank = static_cast<int64_t>(q * static_cast<double>(samples));
    if (static_cast<double>(rank) < q * static_cast<double>(samples)) ++rank;
    if (rank < 1) rank = 1;
    if (rank >= samples) return greatest;  // the greatest sample is known exactly
    int64_t seen = 0;
    for (int i = 0; i < kBuckets; ++i) {
      seen += buckets_[static_cast<size_t>(i)];
      if (seen >= rank) {
        int64_t v = middle(i);
        return v < min() ? min() : v > greatest ? greatest : v;
      }
    }
    return greatest;
  }

 private:
  static constexpr int kSubBits = 3;  // 8 buckets per power of two
  static constexpr int kSub = 1 << kSubBits;
  // Values below kSub have a bucket each; exponents kSubBits..62 have kSub.
  static constexpr int kBuckets = kSub + (63 - kSubBits) * kSub;

  static int bucket(int64_t value) {
    if (value < kSub) return static_cast<int>(value);
    const int exponent = 63 - std::countl_zero(static_cast<uint64_t>(value));
    const int sub = static_cast<int>((value >> (exponent - kSubBits)) & (kSub - 1));
    return kSub + (exponent - kSubBits) * kSub + sub;
  }
  static int64_t middle(int index) {
    if (index < kSub) return index;
    const int exponent = (index - kSub) / kSub + kSubBits;
    const int64_t sub = (index - kSub) % kSub;
    const int64_t width = int64_t{1} << (exponent - kSubBits);
    const int64_t low = (int64_t{1} << exponent) + sub * width;
    return low + (width - 1) / 2;
  }

  LatencyStats totals_;  // count, sum, min and max
  std::array<uint32_t, kBuckets> buckets_{};
};

}  // namespace zkd::server
