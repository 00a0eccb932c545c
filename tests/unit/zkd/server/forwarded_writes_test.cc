// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/forwarded_writes.h"

#include <gtest/gtest.h>

namespace zkd::server {
namespace {

using zk::wire::OpCode;

WriteRequest op(int64_t session, int32_t xid) {
  WriteRequest r;
  r.kind = WriteRequest::Kind::kOp;
  r.session = session;
  r.xid = xid;
  r.op = OpCode::kSetData;
  return r;
}

tree::Txn txn(int64_t session, int32_t xid, OpCode type, int64_t zxid) {
  tree::Txn t;
  t.header.session_id = session;
  t.header.cxid = xid;
  t.header.type = type;
  t.header.zxid = zxid;
  return t;
}

TEST(ForwardedWrites, ACommittedTxnFinishesTheWriteItCarries) {
  ForwardedWrites writes;
  const uint64_t ticket = writes.add_write(op(7, 1));
  EXPECT_EQ(writes.released(), 0u);
  tree::Txn committed = txn(7, 1, OpCode::kSetData, 100);
  tree::Response response;
  response.body = "stat";
  EXPECT_TRUE(writes.applied(committed, response));
  EXPECT_EQ(writes.released(), ticket);
  auto outcome = writes.take(ticket);
  ASSERT_TRUE(outcome);
  EXPECT_EQ(outcome->first.header.zxid, 100);
  EXPECT_EQ(outcome->second.body, "stat");
  EXPECT_FALSE(writes.take(ticket)) << "an outcome is taken once";
}

TEST(ForwardedWrites, OtherServersTxnsAreNotOurs) {
  ForwardedWrites writes;
  writes.add_write(op(7, 1));
  tree::Txn other_session = txn(8, 1, OpCode::kSetData, 100);
  tree::Txn other_xid = txn(7, 2, OpCode::kSetData, 101);
  tree::Response response;
  EXPECT_FALSE(writes.applied(other_session, response));
  EXPECT_FALSE(writes.applied(other_xid, response));
  EXPECT_EQ(writes.released(), 0u);
}

TEST(ForwardedWrites, AWritePassedByALaterOneOfItsSessionWasLost) {
  ForwardedWrites writes;
  const uint64_t first = writes.add_write(op(7, 1));
  const uint64_t second = writes.add_write(op(7, 2));
  tree::Txn committed = txn(7, 2, OpCode::kSetData, 100);
  tree::Response response;
  EXPECT_TRUE(writes.applied(committed, response));
  EXPECT_EQ(writes.released(), second);
  EXPECT_FALSE(writes.take(first)) << "lost: its connection gets closed";
  EXPECT_TRUE(writes.take(second));
}

TEST(ForwardedWrites, TicketsAreReleasedInOrderWritesAndSyncsAlike) {
  ForwardedWrites writes;
  const uint64_t write = writes.add_write(op(7, 1));
  const uint64_t sync = writes.add_sync();
  writes.sync_done(sync);
  EXPECT_EQ(writes.released(), 0u) << "the sync waits for the write before it";
  tree::Txn committed = txn(7, 1, OpCode::kSetData, 100);
  tree::Response response;
  ASSERT_TRUE(writes.applied(committed, response));
  EXPECT_EQ(writes.released(), sync);
  EXPECT_GT(sync, write);
}

TEST(ForwardedWrites, SessionWritesMatchByKindNotXid) {
  ForwardedWrites writes;
  WriteRequest create;
  create.kind = WriteRequest::Kind::kCreateSession;
  create.session = 9;
  const uint64_t ticket = writes.add_write(create);
  tree::Txn op_of_session = txn(9, 0, OpCode::kSetData, 100);
  tree::Response response;
  EXPECT_FALSE(writes.applied(op_of_session, response));
  tree::Txn created = txn(9, 0, OpCode::kCreateSession, 101);
  EXPECT_TRUE(writes.applied(created, response));
  EXPECT_EQ(writes.released(), ticket);
}

TEST(ForwardedWrites, ClearForgetsWhatIsInFlightAndReleasesItsTickets) {
  ForwardedWrites writes;
  writes.add_write(op(7, 1));
  const uint64_t sync = writes.add_sync();
  writes.clear();
  EXPECT_EQ(writes.released(), sync);
  tree::Txn committed = txn(7, 1, OpCode::kSetData, 100);
  tree::Response response;
  EXPECT_FALSE(writes.applied(committed, response));
  const uint64_t next = writes.add_write(op(7, 2));
  EXPECT_EQ(next, sync + 1) << "tickets go on numbering";
}

}  // namespace
}  // namespace zkd::server
