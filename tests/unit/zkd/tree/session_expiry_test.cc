// SPDX-License-Identifier: Apache-2.0
// SessionExpiry: Apache's tick-bucketed expiry with the time passed in.
#include "zkd/tree/session_expiry.h"

#include <gtest/gtest.h>

namespace zkd::tree {
namespace {

TEST(SessionExpiry, ExpiresAtEndOfTickContainingNowPlusTimeout) {
  SessionExpiry e(2000);
  e.touch(1, 10'500, 4000);  // 14'500 rounds up to 16'000
  EXPECT_EQ(e.expiry_of(1), std::optional<int64_t>(16'000));
  EXPECT_EQ(e.next_expiry(), std::optional<int64_t>(16'000));
  EXPECT_TRUE(e.expired(15'999).empty());
  EXPECT_EQ(e.expired(16'000), std::vector<SessionId>{1});
  EXPECT_EQ(e.size(), 0u);
  EXPECT_EQ(e.next_expiry(), std::nullopt);
}

TEST(SessionExpiry, ExactTickBoundaryRoundsToNextTick) {
  SessionExpiry e(2000);
  e.touch(1, 12'000, 4000);  // 16'000 is a boundary: Apache gives 18'000
  EXPECT_EQ(e.expiry_of(1), std::optional<int64_t>(18'000));
}

TEST(SessionExpiry, TouchMovesSessionToLaterBucket) {
  SessionExpiry e(1000);
  e.touch(1, 0, 3000);
  e.touch(2, 0, 3000);
  e.touch(1, 2500, 3000);
  EXPECT_EQ(e.expired(4000), std::vector<SessionId>{2});
  EXPECT_EQ(e.expired(6000), std::vector<SessionId>{1});
}

TEST(SessionExpiry, ExpiredReturnsAllDueBucketsInOrder) {
  SessionExpiry e(1000);
  e.touch(7, 0, 5000);
  e.touch(3, 0, 2000);
  e.touch(5, 0, 2000);
  EXPECT_EQ(e.expired(100'000), (std::vector<SessionId>{3, 5, 7}));
}

TEST(SessionExpiry, RemovedSessionNeverExpires) {
  SessionExpiry e(1000);
  e.touch(1, 0, 2000);
  e.remove(1);
  e.remove(99);
  EXPECT_TRUE(e.expired(100'000).empty());
  EXPECT_EQ(e.expiry_of(1), std::nullopt);
}

}  // namespace
}  // namespace zkd::tree
