// SPDX-License-Identifier: Apache-2.0
// Histogram: a log-bucketed histogram of non-negative integers (zkbench
// records latencies in nanoseconds), in the manner of HdrHistogram.
//
// Buckets: values below 2^kSubBucketBits each have a bucket of their own;
// above, every power of two [2^e, 2^(e+1)) is split into 2^kSubBucketBits
// buckets of equal width. So a bucket's width is at most 1/2^kSubBucketBits
// (1/64) of its lower bound, and a percentile is exact to within that.
//
// Percentiles use the nearest rank: percentile(q) of n values is the value of
// rank ceil(q * n) (at least 1) in sorted order, reported as the largest value
// of its bucket, but never more than max(). Hence, for the exact value v of
// that rank: v <= percentile(q) <= v + v / 2^kSubBucketBits.
//
// Not thread-safe: one writer; zkbench keeps one per thread and op type and
// merges them (merge() is exact: merging equals recording both sets).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zk::bench {

class Histogram {
 public:
  static constexpr int kSubBucketBits = 6;

  Histogram();

  // Records `value` (a negative value counts as 0).
  void record(int64_t value);
  // Adds every value recorded in `other`.
  void merge(const Histogram& other);

  int64_t count() const { return count_; }
  // The smallest and largest value recorded, exactly; 0 when empty.
  int64_t min() const { return count_ == 0 ? 0 : min_; }
  int64_t max() const { return max_; }
  // The mean of the values recorded (exact up to double rounding); 0 when empty.
  double mean() const;
  // The value at quantile `q` in [0, 1] (see above); 0 when empty.
  int64_t percentile(double q) const;

  // The bucket of `value` and the values a bucket holds, [lower, upper]; for tests.
  static size_t bucket_of(int64_t value);
  static int64_t bucket_lower(size_t bucket);
  static int64_t bucket_upper(size_t bucket);

 private:
  std::vector<int64_t> counts_;
  int64_t count_ = 0;
  int64_t min_ = 0;
  int64_t max_ = 0;
  double sum_ = 0;
};

}  // namespace zk::bench
