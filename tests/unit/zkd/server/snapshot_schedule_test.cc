// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/snapshot_schedule.h"

#include <gtest/gtest.h>

#include <set>

namespace zkd::server {
namespace {

TEST(SnapshotSchedule, ThresholdIsBetweenHalfAndAllOfSnapCount) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    SnapshotSchedule s(100, seed);
    EXPECT_GE(s.threshold(), 50);
    EXPECT_LE(s.threshold(), 100);
  }
}

TEST(SnapshotSchedule, ThresholdsAreRandomisedPerSnapshot) {
  SnapshotSchedule s(100000, 42);
  std::set<int64_t> seen;
  for (int i = 0; i < 20; ++i) {
    seen.insert(s.threshold());
    s.started();
  }
  EXPECT_GT(seen.size(), 10u);
}

TEST(SnapshotSchedule, DueAfterThresholdTxnsAndAgainOnlyAfterStart) {
  SnapshotSchedule s(10, 7);
  int64_t threshold = s.threshold();
  for (int64_t i = 1; i < threshold; ++i) EXPECT_FALSE(s.logged()) << i;
  EXPECT_TRUE(s.logged());
  EXPECT_TRUE(s.logged());  // still due while no snapshot started
  s.started();
  EXPECT_EQ(s.since_last(), 0);
  EXPECT_GE(s.threshold(), 5);
  EXPECT_LE(s.threshold(), 10);
}

TEST(SnapshotSchedule, SmallestSnapCountSnapshotsEveryOneOrTwoTxns) {
  SnapshotSchedule s(2, 1);
  EXPECT_GE(s.threshold(), 1);
  EXPECT_LE(s.threshold(), 2);
}

}  // namespace
}  // namespace zkd::server
