// SPDX-License-Identifier: Apache-2.0
// The connection throttle against Apache's BlueThrottle arithmetic: the
// bucket, its refill, the weights and the random drop.
#include "zkd/server/connection_throttle.h"

#include <gtest/gtest.h>

namespace zkd::server {
namespace {

ConnectionThrottle::Options bucket(int32_t tokens, int32_t fill_time_ms, int32_t fill_count) {
  ConnectionThrottle::Options options;
  options.max_tokens = tokens;
  options.fill_time_ms = fill_time_ms;
  options.fill_count = fill_count;
  return options;
}

constexpr double kNoDrop = 0.99;  // a draw that passes any drop probability below it

TEST(ConnectionThrottle, OffByDefaultEveryConnectionPasses) {
  ConnectionThrottle throttle(ConnectionThrottle::Options{}, 0);
  EXPECT_FALSE(throttle.enabled());
  for (int i = 0; i < 10000; ++i) ASSERT_TRUE(throttle.admit(1, 0, 0.0));
}

TEST(ConnectionThrottle, AnEmptyBucketRefusesUntilItRefills) {
  ConnectionThrottle throttle(bucket(3, 10, 1), 1000);
  EXPECT_TRUE(throttle.admit(1, 1000, kNoDrop));
  EXPECT_TRUE(throttle.admit(1, 1000, kNoDrop));
  EXPECT_TRUE(throttle.admit(1, 1000, kNoDrop));
  EXPECT_EQ(throttle.deficit(), 3);
  EXPECT_FALSE(throttle.admit(1, 1005, kNoDrop)) << "no refill before fill_time_ms passed";
  // 25 ms: 2 tokens (25 * 1 / 10, Apache's integer arithmetic).
  EXPECT_TRUE(throttle.admit(1, 1025, kNoDrop));
  EXPECT_TRUE(throttle.admit(1, 1025, kNoDrop));
  EXPECT_FALSE(throttle.admit(1, 1025, kNoDrop));
  // A long quiet time fills it to max_tokens, not beyond.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(throttle.admit(1, 100000, kNoDrop));
  EXPECT_FALSE(throttle.admit(1, 100000, kNoDrop));
}

TEST(ConnectionThrottle, WeightsChargeNewSessionsThreeAndResumedOnesTwo) {
  auto options = bucket(2, 1000, 1);
  options.weight_enabled = true;
  ConnectionThrottle throttle(options, 0);  // 2 global sessions' worth: 6 tokens
  EXPECT_EQ(throttle.tokens_needed(0), 3);
  EXPECT_EQ(throttle.tokens_needed(0x1234), 2);
  EXPECT_TRUE(throttle.admit(throttle.tokens_needed(0), 0, kNoDrop));
  EXPECT_TRUE(throttle.admit(throttle.tokens_needed(7), 0, kNoDrop));
  EXPECT_FALSE(throttle.admit(throttle.tokens_needed(0), 0, kNoDrop)) << "1 token left";
  EXPECT_TRUE(throttle.admit(1, 0, kNoDrop));
}

TEST(ConnectionThrottle, NonsenseWeightsAreCorrectedAsApacheDoes) {
  auto options = bucket(10, 1, 1);
  options.weight_enabled = true;
  options.global_weight = 0;  // its default, 3
  options.local_weight = 4;   // then neither new nor resumed weighs less
  options.renew_weight = -1;
  ConnectionThrottle throttle(options, 0);
  EXPECT_EQ(throttle.tokens_needed(0), 4);
  EXPECT_EQ(throttle.tokens_needed(9), 4);
}

TEST(ConnectionThrottle, TheDropProbabilityRisesWhileEmptyAndFallsWhileFull) {
  auto options = bucket(1, 1000000, 1);  // never refills within the test
  options.freeze_time_ms = 10;
  options.drop_increase = 0.25;
  options.drop_decrease = 0.1;
  ConnectionThrottle throttle(options, 0);
  EXPECT_TRUE(throttle.admit(1, 0, kNoDrop));  // empties the bucket
  EXPECT_EQ(throttle.drop_probability(), 0.0);
  EXPECT_FALSE(throttle.admit(1, 11, kNoDrop));  // empty after a freeze time: +0.25
  EXPECT_DOUBLE_EQ(throttle.drop_probability(), 0.25);
  EXPECT_FALSE(throttle.admit(1, 15, kNoDrop));  // within the freeze time: unchanged
  EXPECT_DOUBLE_EQ(throttle.drop_probability(), 0.25);
  EXPECT_FALSE(throttle.admit(1, 30, 0.1)) << "a draw below the probability is dropped";
  EXPECT_DOUBLE_EQ(throttle.drop_probability(), 0.5);
  for (int t = 50; t <= 200; t += 20) throttle.admit(1, t, kNoDrop);
  EXPECT_DOUBLE_EQ(throttle.drop_probability(), 1.0) << "capped at 1";

  // Refilled (2,000,000 ms is two fills): the probability falls by 0.1 per freeze time.
  EXPECT_FALSE(throttle.admit(1, 2000000, 0.5)) << "dropped before the tokens are looked at";
  EXPECT_DOUBLE_EQ(throttle.drop_probability(), 0.9);
}

}  // namespace
}  // namespace zkd::server
