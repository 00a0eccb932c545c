// SPDX-License-Identifier: Apache-2.0
#include "zkd/net/backoff.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace zkd::net {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

std::vector<milliseconds> delays(Backoff& backoff, int n) {
  std::vector<milliseconds> out;
  for (int i = 0; i < n; ++i) out.push_back(backoff.next());
  return out;
}

TEST(Backoff, DoublesFromTheFirstDelayUpToTheCap) {
  Backoff backoff(100ms, 5s);
  EXPECT_EQ(delays(backoff, 9), (std::vector<milliseconds>{100ms, 200ms, 400ms, 800ms, 1600ms,
                                                           3200ms, 5000ms, 5000ms, 5000ms}));
}

TEST(Backoff, PeekShowsTheNextDelayWithoutMovingOn) {
  Backoff backoff(50ms, 1s);
  EXPECT_EQ(backoff.peek(), 50ms);
  EXPECT_EQ(backoff.peek(), 50ms);
  backoff.next();
  EXPECT_EQ(backoff.peek(), 100ms);
}

TEST(Backoff, ResetStartsOverFromTheFirstDelay) {
  Backoff backoff(100ms, 5s);
  delays(backoff, 10);
  backoff.reset();
  EXPECT_EQ(delays(backoff, 3), (std::vector<milliseconds>{100ms, 200ms, 400ms}));
}

TEST(Backoff, ACapBelowTheFirstDelayIsTheFirstDelay) {
  Backoff backoff(300ms, 100ms);
  EXPECT_EQ(delays(backoff, 3), (std::vector<milliseconds>{300ms, 300ms, 300ms}));
}

TEST(Backoff, AHugeCapDoesNotOverflow) {
  Backoff backoff(milliseconds::max() / 3, milliseconds::max());
  backoff.next();
  backoff.next();
  EXPECT_EQ(backoff.next(), milliseconds::max());
  EXPECT_EQ(backoff.next(), milliseconds::max());
}

}  // namespace
}  // namespace zkd::net
