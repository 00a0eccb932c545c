// SPDX-License-Identifier: Apache-2.0
// toolkit::poll_until's contract: called at once, then every interval until
// it holds or the deadline passes, with a last call at the deadline.
#include "toolkit/poll_until.h"

#include <gtest/gtest.h>

#include <chrono>

namespace zk::toolkit {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(PollUntil, AConditionThatHoldsAtOnceIsCalledOnce) {
  int calls = 0;
  EXPECT_TRUE(poll_until([&] { return ++calls > 0; }, 10s, 1h));
  EXPECT_EQ(calls, 1);
}

TEST(PollUntil, CallsAgainUntilTheConditionHolds) {
  int calls = 0;
  EXPECT_TRUE(poll_until([&] { return ++calls == 3; }, 60s, 1ms));
  EXPECT_EQ(calls, 3);
}

TEST(PollUntil, GivesUpNoSoonerThanTheDeadline) {
  int calls = 0;
  const auto start = Clock::now();
  EXPECT_FALSE(poll_until([&] { return ++calls < 0; }, 30ms, 5ms));
  EXPECT_GE(Clock::now() - start, 30ms);
  EXPECT_GE(calls, 1);
}

TEST(PollUntil, TheLastCallComesAtTheDeadlineNotAnIntervalLater) {
  // With an interval far beyond the deadline, the wait is cut to the time
  // left, and that last call sees a condition that holds from the deadline on.
  const auto deadline = Clock::now() + 20ms;
  int calls = 0;
  EXPECT_TRUE(poll_until(
      [&] {
        ++calls;
        return Clock::now() >= deadline;
      },
      deadline, 1h));
  EXPECT_LE(calls, 2);  // at once (unless this thread was late), then at the deadline
}

TEST(PollUntil, ADeadlineAlreadyPassedStillLooksOnce) {
  int calls = 0;
  EXPECT_FALSE(poll_until([&] { return ++calls < 0; }, Clock::now() - 1s, 1ms));
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(poll_until([] { return true; }, 0ms, 1ms));
}

}  // namespace
}  // namespace zk::toolkit
