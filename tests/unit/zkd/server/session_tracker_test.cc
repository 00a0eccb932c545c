// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/session_tracker.h"

#include <gtest/gtest.h>

namespace zkd::server {
namespace {

TEST(SessionTracker, ExpiresAtTimeoutRoundedUpToNextTick) {
  SessionTracker t(1000);
  t.touch(1, 4000, 10'500);  // 14'500 -> bucket 15'000
  EXPECT_TRUE(t.expire(14'999).empty());
  EXPECT_TRUE(t.contains(1));
  EXPECT_EQ(t.expire(15'000), std::vector<int64_t>{1});
  EXPECT_FALSE(t.contains(1));
  EXPECT_TRUE(t.expire(100'000).empty());
}

TEST(SessionTracker, TouchPostponesExpiry) {
  SessionTracker t(1000);
  t.touch(1, 4000, 0);            // bucket 5000
  EXPECT_TRUE(t.touch(1, 3000));  // bucket 8000
  EXPECT_TRUE(t.expire(7'999).empty());
  EXPECT_EQ(t.expire(8'000), std::vector<int64_t>{1});
}

TEST(SessionTracker, TouchingUnknownSessionFails) {
  SessionTracker t(1000);
  EXPECT_FALSE(t.touch(42, 0));
  EXPECT_FALSE(t.contains(42));
}

TEST(SessionTracker, NewTimeoutReplacesOld) {
  SessionTracker t(100);
  t.touch(1, 10'000, 0);
  t.touch(1, 1'000, 0);  // resumed with a shorter timeout
  EXPECT_EQ(t.timeout(1), 1000);
  EXPECT_EQ(t.expire(1'100), std::vector<int64_t>{1});
}

TEST(SessionTracker, RemovedSessionNeverExpires) {
  SessionTracker t(100);
  t.touch(1, 500, 0);
  t.touch(2, 500, 0);
  t.remove(1);
  EXPECT_EQ(t.expire(10'000), std::vector<int64_t>{2});
  EXPECT_EQ(t.size(), 0u);
}

TEST(SessionTracker, BucketsGroupSessionsByExpiry) {
  SessionTracker t(1000);
  t.touch(1, 2000, 0);
  t.touch(2, 2000, 500);
  t.touch(3, 5000, 0);
  auto b = t.buckets();
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].first, 3000);
  EXPECT_EQ(b[0].second, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(b[1].first, 6000);
  EXPECT_EQ(b[1].second, std::vector<int64_t>{3});
}

}  // namespace
}  // namespace zkd::server
