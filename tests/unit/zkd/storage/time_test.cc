// SPDX-License-Identifier: Apache-2.0
// Time behind Env (clock.h): the simulated clocks and timers, and the real
// timer's contract that a re-armed or cancelled timer never calls the old
// callback.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "zkd/clock/real_time.h"
#include "zkd/storage/memory_env.h"
#include "zkd/storage/simulated_time.h"

namespace zkd::storage {
namespace {

using std::chrono::milliseconds;

TEST(SimulatedTime, ClocksStandStillUntilAdvanced) {
  SimulatedTime time(7, 1'000'000);
  const int64_t steady = time.steady_us();
  EXPECT_EQ(time.wall_ms(), 1'000'000);
  EXPECT_EQ(time.steady_us(), steady);
  time.advance(milliseconds(1500));
  EXPECT_EQ(time.steady_us(), steady + 1'500'000);
  EXPECT_EQ(time.wall_ms(), 1'001'500);
  EXPECT_EQ(time.steady_ms(), steady / 1000 + 1500);
}

TEST(SimulatedTime, TimersFireInDeadlineOrderAtTheirDeadlines) {
  SimulatedTime time;
  std::vector<std::string> fired;
  auto late = time.new_timer();
  auto early = time.new_timer();
  auto tie = time.new_timer();
  const int64_t start = time.steady_ms();
  late->arm(milliseconds(30),
            [&] { fired.push_back("late@" + std::to_string(time.steady_ms() - start)); });
  early->arm(milliseconds(10),
             [&] { fired.push_back("early@" + std::to_string(time.steady_ms() - start)); });
  tie->arm(milliseconds(30),
           [&] { fired.push_back("tie@" + std::to_string(time.steady_ms() - start)); });
  EXPECT_EQ(time.armed(), 3u);
  time.advance(milliseconds(29));
  EXPECT_EQ(fired, (std::vector<std::string>{"early@10"}));
  time.advance(milliseconds(100));
  // Equal deadlines fire in the order they were armed.
  EXPECT_EQ(fired, (std::vector<std::string>{"early@10", "late@30", "tie@30"}));
  EXPECT_EQ(time.steady_ms() - start, 129);
  EXPECT_EQ(time.armed(), 0u);
}

TEST(SimulatedTime, ATimerArmedByAFiringFiresWithinTheSameAdvance) {
  SimulatedTime time;
  auto timer = time.new_timer();
  int ticks = 0;
  std::function<void()> tick = [&] {
    ++ticks;
    timer->arm(milliseconds(10), tick);
  };
  timer->arm(milliseconds(10), tick);
  time.advance(milliseconds(95));
  EXPECT_EQ(ticks, 9);
  EXPECT_EQ(time.armed(), 1u);
}

TEST(SimulatedTime, RearmingCancellingAndDestroyingDropThePendingCall) {
  SimulatedTime time;
  int calls = 0;
  auto rearmed = time.new_timer();
  rearmed->arm(milliseconds(5), [&] { calls += 100; });
  rearmed->arm(milliseconds(20), [&] { calls += 1; });
  auto cancelled = time.new_timer();
  cancelled->arm(milliseconds(5), [&] { calls += 1000; });
  cancelled->cancel();
  auto destroyed = time.new_timer();
  destroyed->arm(milliseconds(5), [&] { calls += 10000; });
  destroyed.reset();
  time.advance(milliseconds(50));
  EXPECT_EQ(calls, 1);
}

TEST(SimulatedTime, AdvanceToNextJumpsToTheEarliestDeadline) {
  SimulatedTime time;
  EXPECT_FALSE(time.advance_to_next());
  auto timer = time.new_timer();
  bool fired = false;
  const int64_t start = time.steady_us();
  timer->arm(milliseconds(250), [&] { fired = true; });
  EXPECT_EQ(time.next_deadline(), start + 250'000);
  EXPECT_TRUE(time.advance_to_next());
  EXPECT_TRUE(fired);
  EXPECT_EQ(time.steady_us(), start + 250'000);
}

TEST(SimulatedTime, RandomnessIsTheSeedsSequence) {
  SimulatedTime a(42), b(42), c(43);
  const uint64_t first = a.random();
  EXPECT_EQ(first, b.random());
  EXPECT_NE(first, c.random());
  EXPECT_NE(first, a.random());
}

TEST(MemoryEnvTime, TheEnvsTimersAndClockAreItsSimulatedTime) {
  MemoryEnv env(5);
  boost::asio::io_context io;  // ignored by a simulated Env
  auto timer = env.new_timer(io);
  bool fired = false;
  timer->arm(milliseconds(10), [&] { fired = true; });
  EXPECT_EQ(io.poll(), 0u);
  EXPECT_FALSE(fired);
  const int64_t before = env.clock().steady_ms();
  env.time().advance(milliseconds(10));
  EXPECT_TRUE(fired);
  EXPECT_EQ(env.clock().steady_ms(), before + 10);
  EXPECT_EQ(MemoryEnv(5).secure_random(), env.secure_random());
}

TEST(RealTimer, FiresOnTheIoContextsThread) {
  boost::asio::io_context io;
  auto timer = new_real_timer(io);
  bool fired = false;
  timer->arm(milliseconds(1), [&] { fired = true; });
  EXPECT_EQ(io.run_one_for(std::chrono::seconds(30)), 1u);
  EXPECT_TRUE(fired);
}

// A wait that already completed (its handler queued) when the timer is armed
// again, cancelled or destroyed must not call the callback it was armed with.
TEST(RealTimer, AQueuedCompletionOfAnOldArmIsDropped) {
  boost::asio::io_context io;
  int calls = 0;
  auto rearmed = new_real_timer(io);
  auto cancelled = new_real_timer(io);
  auto destroyed = new_real_timer(io);
  rearmed->arm(milliseconds(0), [&] { calls += 100; });
  cancelled->arm(milliseconds(0), [&] { calls += 1000; });
  destroyed->arm(milliseconds(0), [&] { calls += 10000; });
  // The deadlines have passed; a handler posted now runs on the io_context's
  // one thread around the reactor's completion of those waits.
  boost::asio::post(io, [&] {
    rearmed->arm(milliseconds(0), [&] { calls += 1; });
    cancelled->cancel();
    destroyed.reset();
  });
  io.run_for(std::chrono::seconds(30));
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace zkd::storage
