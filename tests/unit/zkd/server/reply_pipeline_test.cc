// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/reply_pipeline.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zkd::server {
namespace {

using Pipeline = ReplyPipeline<std::string, std::string>;
using Kind = Pipeline::Step::Kind;

// Every step available at `durable`, as "c<conn>:<write or read>".
std::vector<std::string> drain(Pipeline& p, int64_t durable) {
  std::vector<std::string> out;
  while (auto step = p.next(durable)) {
    std::string what = step->kind == Kind::kWrite ? *step->write : *step->read;
    if (step->kind == Kind::kBarrier) what = "barrier " + what;
    out.push_back("c" + std::to_string(step->connection) + ":" + what);
  }
  return out;
}

using Steps = std::vector<std::string>;

TEST(ReplyPipeline, IdleConnectionAnswersAtOnce) {
  Pipeline p;
  EXPECT_FALSE(p.busy(1));
  EXPECT_TRUE(p.empty());
  EXPECT_TRUE(drain(p, 100).empty());
}

TEST(ReplyPipeline, WriteWaitsForItsZxidToBeDurable) {
  Pipeline p;
  p.add_write(1, 5, "create");
  EXPECT_TRUE(p.busy(1));
  EXPECT_FALSE(p.busy(2));
  EXPECT_EQ(p.writes_pending(), 1u);
  EXPECT_TRUE(drain(p, 4).empty());
  EXPECT_EQ(drain(p, 5), Steps{"c1:create"});
  EXPECT_FALSE(p.busy(1));
  EXPECT_EQ(p.writes_pending(), 0u);
}

TEST(ReplyPipeline, ReadsBehindAWriteOfTheirConnectionFollowItInOrder) {
  Pipeline p;
  p.add_write(1, 1, "w1");
  p.defer(1, "r1");
  p.defer(1, "ping");
  p.add_write(1, 2, "w2");
  p.defer(1, "r2");
  EXPECT_EQ(drain(p, 1), (Steps{"c1:w1", "c1:r1", "c1:ping"}));
  EXPECT_TRUE(p.busy(1));  // r2 still waits for w2
  EXPECT_EQ(drain(p, 2), (Steps{"c1:w2", "c1:r2"}));
  EXPECT_FALSE(p.busy(1));
}

TEST(ReplyPipeline, AConnectionWithOnlyWritesPendingMayPipelineAnother) {
  Pipeline p;
  EXPECT_FALSE(p.only_marks(1));  // nothing pending: not busy at all
  p.add_write(1, 1, "w1");
  EXPECT_TRUE(p.only_marks(1));
  p.add_write(1, 2, "w2");
  EXPECT_TRUE(p.only_marks(1));
  p.defer(1, "r");
  EXPECT_FALSE(p.only_marks(1));  // a later write must wait behind the read
  EXPECT_EQ(drain(p, 1), Steps{"c1:w1"});
  EXPECT_EQ(drain(p, 2), (Steps{"c1:w2", "c1:r"}));
  EXPECT_FALSE(p.busy(1));
}

TEST(ReplyPipeline, WritesOfAllConnectionsApplyInZxidOrderAndReleaseOnlyTheirOwnReads) {
  Pipeline p;
  p.add_write(1, 1, "a1");
  p.defer(1, "ra");
  p.add_write(2, 2, "b1");
  p.defer(2, "rb");
  p.add_write(Pipeline::kNoConnection, 3, "expiry");
  EXPECT_EQ(drain(p, 1), (Steps{"c1:a1", "c1:ra"}));
  EXPECT_TRUE(p.busy(2));
  EXPECT_EQ(drain(p, 3), (Steps{"c2:b1", "c2:rb", "c0:expiry"}));
}

TEST(ReplyPipeline, SyncIsAnsweredAtOnceWhenNothingIsPending) {
  Pipeline p;
  auto back = p.add_barrier(1, "sync");
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, "sync");
  EXPECT_FALSE(p.busy(1));
}

TEST(ReplyPipeline, SyncWaitsForWritesOfOtherSessionsPreparedBeforeIt) {
  Pipeline p;
  p.add_write(2, 7, "other");
  EXPECT_FALSE(p.add_barrier(1, "sync"));
  EXPECT_TRUE(p.busy(1));
  p.defer(1, "read after sync");
  p.add_write(3, 8, "later");
  EXPECT_TRUE(drain(p, 6).empty());
  EXPECT_EQ(drain(p, 7), (Steps{"c2:other", "c1:barrier sync", "c1:read after sync"}));
  EXPECT_EQ(drain(p, 8), Steps{"c3:later"});
}

TEST(ReplyPipeline, ForgottenConnectionStillHasItsWritesAppliedButNoReads) {
  Pipeline p;
  p.add_write(1, 1, "w");
  p.defer(1, "r");
  p.forget(1);
  EXPECT_FALSE(p.busy(1));
  EXPECT_EQ(drain(p, 1), Steps{"c1:w"});
}

TEST(ReplyPipeline, WriteMadeByADeferredRequestTakesThatRequestsPlace) {
  // A frame pipelined behind the handshake turns out to be a write: it must
  // be answered before the read that was deferred after it.
  Pipeline p;
  p.add_write(1, 1, "createSession");
  p.defer(1, "create /a");
  p.defer(1, "get /a");
  auto step = p.next(1);
  ASSERT_TRUE(step);
  EXPECT_EQ(*step->write, "createSession");
  step = p.next(1);
  ASSERT_TRUE(step);
  EXPECT_EQ(step->kind, Kind::kRequest);
  EXPECT_EQ(*step->read, "create /a");
  p.add_write(1, 2, "create /a");  // what the server does with it
  EXPECT_TRUE(drain(p, 1).empty());
  EXPECT_EQ(drain(p, 2), (Steps{"c1:create /a", "c1:get /a"}));
}

TEST(ReplyPipeline, SyncMadeByADeferredRequestTakesThatRequestsPlace) {
  Pipeline p;
  p.add_write(1, 1, "w1");
  p.add_write(2, 2, "other");
  p.defer(1, "sync");
  p.defer(1, "get");
  auto step = p.next(1);
  ASSERT_TRUE(step);
  step = p.next(1);
  ASSERT_TRUE(step);
  EXPECT_EQ(*step->read, "sync");
  EXPECT_FALSE(p.add_barrier(1, "sync"));  // "other" is still pending
  EXPECT_TRUE(drain(p, 1).empty());
  EXPECT_EQ(drain(p, 2), (Steps{"c2:other", "c1:barrier sync", "c1:get"}));
}

}  // namespace
}  // namespace zkd::server
