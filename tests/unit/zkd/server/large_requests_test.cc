// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/large_requests.h"

#include <gtest/gtest.h>

#include <set>

namespace zkd::server {
namespace {

class LargeRequestBudgetTest : public ::testing::Test {
 protected:
  std::set<net::ConnectionId> busy_;
  std::function<bool(net::ConnectionId)> busy = [this](net::ConnectionId id) {
    return busy_.count(id) != 0;
  };
};

TEST_F(LargeRequestBudgetTest, OffByDefaultNothingIsLarge) {
  LargeRequestBudget budget(-1, 10);
  EXPECT_TRUE(budget.admit(1, 1 << 20, busy));
  EXPECT_EQ(budget.bytes(), 0);
}

TEST_F(LargeRequestBudgetTest, LargeRequestsInProcessShareTheBudget) {
  LargeRequestBudget budget(100, 1000);
  busy_ = {1, 2};
  EXPECT_TRUE(budget.admit(1, 100, busy)) << "at the threshold is not large";
  EXPECT_EQ(budget.bytes(), 0);
  EXPECT_TRUE(budget.admit(1, 600, busy));
  EXPECT_TRUE(budget.admit(2, 400, busy));
  EXPECT_EQ(budget.bytes(), 1000);
  EXPECT_FALSE(budget.admit(2, 101, busy)) << "both holders are still in process";
  EXPECT_TRUE(budget.admit(3, 50, busy)) << "small requests always pass";
}

TEST_F(LargeRequestBudgetTest, BytesComeBackWhenTheConnectionSettlesOrTurnsOutIdle) {
  LargeRequestBudget budget(10, 1000);
  busy_ = {1, 2};
  ASSERT_TRUE(budget.admit(1, 700, busy));
  ASSERT_TRUE(budget.admit(2, 300, busy));
  budget.settle(2);
  EXPECT_EQ(budget.bytes(), 700);
  busy_.erase(1);  // answered, not yet settled
  EXPECT_TRUE(budget.admit(3, 900, busy)) << "an idle holder's bytes are taken back first";
  EXPECT_EQ(budget.bytes(), 900);
  budget.settle(3);
  budget.settle(3);
  EXPECT_EQ(budget.bytes(), 0);
}

}  // namespace
}  // namespace zkd::server
