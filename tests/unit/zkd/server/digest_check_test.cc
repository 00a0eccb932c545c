// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/digest_check.h"

#include <gtest/gtest.h>

namespace zkd::server {
namespace {

TEST(DigestCheck, TheLeadersDigestMeetsOursInEitherOrder) {
  DigestCheck check;
  EXPECT_FALSE(check.applied(1, 10));
  EXPECT_FALSE(check.applied(2, 20));
  EXPECT_FALSE(check.leaders(2, 20));  // we applied it already
  EXPECT_FALSE(check.leaders(4, 40));  // ahead of us: kept
  EXPECT_EQ(check.compared(), 1u);
  EXPECT_FALSE(check.applied(3, 30));
  EXPECT_FALSE(check.applied(4, 40));
  EXPECT_EQ(check.compared(), 2u);
}

TEST(DigestCheck, ADifferenceIsReportedWithBothDigests) {
  DigestCheck check;
  EXPECT_FALSE(check.applied(7, 70));
  auto m = check.leaders(7, 71);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->zxid, 7);
  EXPECT_EQ(m->ours, 70u);
  EXPECT_EQ(m->leaders, 71u);

  EXPECT_FALSE(check.leaders(9, 90));
  m = check.applied(9, 91);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->ours, 91u);
  EXPECT_EQ(m->leaders, 90u);
}

TEST(DigestCheck, DigestsThatCannotMeetAreDroppedNotCompared) {
  DigestCheck check;
  EXPECT_FALSE(check.leaders(5, 1));  // nothing applied yet: kept
  EXPECT_FALSE(check.applied(6, 2));  // a snapshot took us past 5
  EXPECT_FALSE(check.applied(7, 3));
  EXPECT_FALSE(check.leaders(3, 99));  // older than anything kept
  EXPECT_EQ(check.compared(), 0u);
  check.reset();
  EXPECT_FALSE(check.leaders(7, 99));  // kept as ahead: ours were cleared
  EXPECT_EQ(check.compared(), 0u);
}

TEST(DigestCheck, KeepsABoundedHistory) {
  DigestCheck check;
  for (int64_t z = 1; z <= static_cast<int64_t>(DigestCheck::kKept) + 10; ++z) {
    EXPECT_FALSE(check.applied(z, static_cast<uint64_t>(z)));
  }
  EXPECT_FALSE(check.leaders(1, 12345));  // forgotten: not compared
  EXPECT_EQ(check.compared(), 0u);
  EXPECT_TRUE(check.leaders(20, 12345));  // still kept
}

}  // namespace
}  // namespace zkd::server
