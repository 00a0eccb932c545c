// When a replica sends a Ready's messages (zkd/server/replication.h).
#include <gtest/gtest.h>

#include "zkd/server/replication.h"

namespace zkd::server {
namespace {

zab::Message message(zab::MsgType type, zab::ServerId to) {
  return zab::Message{.type = type, .from = 1, .to = to, .zxid = zab::make_zxid(1, 5)};
}

// The leader's batch after propose(): its entry and the Proposals.
zab::Ready proposal_ready() {
  zab::Ready ready;
  ready.entries.push_back(zab::Entry{zab::make_zxid(1, 5), "txn"});
  ready.messages = {message(zab::MsgType::kProposal, 2), message(zab::MsgType::kProposal, 3)};
  return ready;
}

TEST(ReadySendTest, ProposalsLeaveBeforeTheEntryGoesToTheLog) {
  EXPECT_EQ(ready_send(proposal_ready(), false), ReadySend::kFirst);
}

TEST(ReadySendTest, AnAckLeavesFirst) {
  zab::Ready ready;
  ready.messages = {message(zab::MsgType::kAck, 1)};
  EXPECT_EQ(ready_send(ready, false), ReadySend::kFirst);
}

TEST(ReadySendTest, CommitsWaitForTheRepliesTheirTxnsRelease) {
  zab::Ready ready;
  ready.committed.push_back(zab::Entry{zab::make_zxid(1, 5), "txn"});
  ready.messages = {message(zab::MsgType::kCommit, 2), message(zab::MsgType::kCommit, 3)};
  EXPECT_EQ(ready_send(ready, false), ReadySend::kAfterReplies);
}

TEST(ReadySendTest, NothingOvertakesAHeldMessage) {
  EXPECT_EQ(ready_send(proposal_ready(), true), ReadySend::kAfterReplies);
}

TEST(ReadySendTest, SnapshotsAndTruncationsKeepTheContractOrder) {
  zab::Ready snap;
  snap.messages = {message(zab::MsgType::kSnap, 2), message(zab::MsgType::kDiff, 2)};
  EXPECT_EQ(ready_send(snap, false), ReadySend::kAfterReplies);
  zab::Ready truncate;
  truncate.truncate_after = zab::make_zxid(1, 3);
  truncate.messages = {message(zab::MsgType::kAckNewLeader, 1)};
  EXPECT_EQ(ready_send(truncate, false), ReadySend::kAfterReplies);
  zab::Ready install;
  install.install_snapshot = zab::make_zxid(1, 3);
  EXPECT_EQ(ready_send(install, false), ReadySend::kAfterReplies);
}

}  // namespace
}  // namespace zkd::server
