// SPDX-License-Identifier: Apache-2.0
#include "zkbench/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace zk::bench {

namespace {

constexpr int64_t kSub = int64_t{1} << Histogram::kSubBucketBits;
// 2^kSubBucketBits exact buckets, then kSub buckets per power of two up to 2^63.
constexpr size_t kBuckets = static_cast<size_t>((64 - Histogram::kSubBucketBits) * kSub);

}  // namespace

Histogram::Histogram() : counts_(kBuckets, 0) {}

size_t Histogram::bucket_of(int64_t value) {
  if (value < kSub) return static_cast<size_t>(std::max<int64_t>(value, 0));
  const auto v = static_cast<uint64_t>(value);
  const int exponent = std::bit_width(v) - 1;  // >= kSubBucketBits
  const int shift = exponent - kSubBucketBits;
  const auto sub = static_cast<int64_t>(v >> shift) - kSub;  // in [0, kSub)
  return static_cast<size_t>((shift + 1) * kSub + sub);
}

int64_t Histogram::bucket_lower(size_t bucket) {
  const auto b = static_cast<int64_t>(bucket);
  if (b < kSub) return b;
  const int64_t shift = b / kSub - 1;
  return (kSub + b % kSub) << shift;
}

int64_t Histogram::bucket_upper(size_t bucket) {
  const auto b = static_cast<int64_t>(bucket);
  if (b < kSub) return b;
  const int64_t shift = b / kSub - 1;
  // lower + width - 1, computed so that the last bucket does not overflow.
  return bucket_lower(bucket) + ((int64_t{1} << shift) - 1);
}

void Histogram::record(int64_t value) {
  value = std::max<int64_t>(value, 0);
  ++counts_[bucket_of(value)];
  min_ = count_ == 0 ? value : std::min(min_, value);
  max_ = std::max(max_, value);
  ++count_;
  sum_ += static_cast<double>(value);
}

void Histogram::merge(const Histogram& other) {
  if (other.count_ == 0) return;
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
}

double Histogram::mean() const { return count_ == 0 ? 0 : sum_ / static_cast<double>(count_); }

int64_t Histogram::percentile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // The small epsilon keeps q * n that is an integer in exact arithmetic
  // (0.999 * 1000) from rounding up to the next rank.
  const auto rank = std::clamp<int64_t>(
      static_cast<int64_t>(std::ceil(q * static_cast<double>(count_) - 1e-9)), 1, count_);
  int64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(bucket_upper(i), max_);
  }
  return max_;
}

}  // namespace zk::bench
