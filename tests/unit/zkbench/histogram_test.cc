// SPDX-License-Identifier: Apache-2.0
// Histogram: percentiles against a sorted reference, merge, extremes.
#include "zkbench/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using zk::bench::Histogram;

constexpr double kQuantiles[] = {0.0, 0.01, 0.5, 0.9, 0.99, 0.999, 1.0};

// The nearest-rank value of quantile q in `sorted`.
int64_t reference(const std::vector<int64_t>& sorted, double q) {
  const auto n = static_cast<int64_t>(sorted.size());
  const auto rank =
      std::clamp<int64_t>(static_cast<int64_t>(std::ceil(q * static_cast<double>(n) - 1e-9)), 1, n);
  return sorted[static_cast<size_t>(rank - 1)];
}

// The histogram's contract: v <= percentile <= v + v/64 for the reference v.
void expect_percentiles(const Histogram& h, std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  for (double q : kQuantiles) {
    const int64_t ref = reference(values, q);
    const int64_t got = h.percentile(q);
    EXPECT_GE(got, ref) << "q=" << q;
    EXPECT_LE(got, ref + ref / 64) << "q=" << q;
  }
  EXPECT_EQ(h.count(), static_cast<int64_t>(values.size()));
  EXPECT_EQ(h.min(), values.front());
  EXPECT_EQ(h.max(), values.back());
}

std::vector<int64_t> lognormal_latencies(uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(200'000.0), 1.2);  // ~200 µs in ns
  std::vector<int64_t> out;
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<int64_t>(d(rng)));
  return out;
}

TEST(Histogram, PercentilesMatchASortedReference) {
  const auto values = lognormal_latencies(7, 100'000);
  Histogram h;
  for (int64_t v : values) h.record(v);
  expect_percentiles(h, values);
  double sum = 0;
  for (int64_t v : values) sum += static_cast<double>(v);
  EXPECT_NEAR(h.mean(), sum / static_cast<double>(values.size()), 1.0);
}

TEST(Histogram, SmallValuesAreExact) {
  Histogram h;
  std::vector<int64_t> values;
  for (int64_t v = 0; v < 64; ++v) {
    for (int64_t k = 0; k <= v; ++k) values.push_back(v);
  }
  for (int64_t v : values) h.record(v);
  std::sort(values.begin(), values.end());
  for (double q : kQuantiles) EXPECT_EQ(h.percentile(q), reference(values, q)) << "q=" << q;
}

TEST(Histogram, MergeEqualsRecordingBoth) {
  const auto a = lognormal_latencies(1, 30'000);
  const auto b = lognormal_latencies(2, 50'000);
  Histogram ha, hb, both;
  for (int64_t v : a) ha.record(v), both.record(v);
  for (int64_t v : b) hb.record(v), both.record(v);
  ha.merge(hb);
  std::vector<int64_t> all = a;
  all.insert(all.end(), b.begin(), b.end());
  expect_percentiles(ha, all);
  for (double q : kQuantiles) EXPECT_EQ(ha.percentile(q), both.percentile(q)) << "q=" << q;
  EXPECT_EQ(ha.min(), both.min());
  EXPECT_EQ(ha.max(), both.max());

  Histogram empty;
  empty.merge(ha);
  EXPECT_EQ(empty.min(), ha.min());
  EXPECT_EQ(empty.percentile(0.5), ha.percentile(0.5));
  ha.merge(Histogram());
  EXPECT_EQ(ha.count(), both.count());
}

TEST(Histogram, Extremes) {
  Histogram empty;
  EXPECT_EQ(empty.count(), 0);
  EXPECT_EQ(empty.percentile(0.99), 0);
  EXPECT_EQ(empty.min(), 0);
  EXPECT_EQ(empty.max(), 0);
  EXPECT_EQ(empty.mean(), 0);

  Histogram h;
  const int64_t big = std::numeric_limits<int64_t>::max();
  h.record(-5);  // counts as 0
  h.record(big);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), big);
  EXPECT_EQ(h.percentile(0.5), 0);
  EXPECT_EQ(h.percentile(1.0), big);
  EXPECT_EQ(h.percentile(2.0), big);  // clamped to 1

  Histogram one;
  one.record(123'456'789);
  for (double q : kQuantiles) EXPECT_EQ(one.percentile(q), 123'456'789);  // never above max
}

TEST(Histogram, BucketsTileTheValuesWithBoundedWidth) {
  EXPECT_EQ(Histogram::bucket_of(0), 0u);
  for (size_t b = 1; b < Histogram::bucket_of(std::numeric_limits<int64_t>::max()); ++b) {
    ASSERT_EQ(Histogram::bucket_lower(b), Histogram::bucket_upper(b - 1) + 1) << b;
    const int64_t lower = Histogram::bucket_lower(b);
    ASSERT_LE(Histogram::bucket_upper(b) - lower, lower / 64) << b;
    ASSERT_EQ(Histogram::bucket_of(lower), b);
    ASSERT_EQ(Histogram::bucket_of(Histogram::bucket_upper(b)), b);
  }
  EXPECT_EQ(Histogram::bucket_upper(Histogram::bucket_of(std::numeric_limits<int64_t>::max())),
            std::numeric_limits<int64_t>::max());
}

}  // namespace
