// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/snapshot_stream.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/common/request_bodies.h"
#include "zkd/server/snapshot_install.h"
#include "zkd/storage/memory_env.h"

namespace zkd::server {
namespace {

using zab::Message;
using zab::MsgType;
using zk::test::create_body;
using zk::wire::OpCode;

const StorageLayout kLayout{"data/version-2", "logs/version-2"};
constexpr int64_t kSession = 0x100;
constexpr zab::ServerId kLeader = 1;
constexpr zab::ServerId kLearner = 2;

// A leader's tree that the test writes to, and what its OutgoingSnapshots
// sent: every message, with its attachment, per destination in order.
class SnapshotStreamTest : public ::testing::Test {
 protected:
  struct Sent {
    Message m;
    std::string bytes;
  };

  OutgoingSnapshots outgoing(SnapshotStreamLimits limits = {.chunk_nodes = 10,
                                                            .queued_bytes = 1 << 20,
                                                            .nodes_per_pump = 30}) {
    return OutgoingSnapshots(
        limits,
        [this](Message m, std::string bytes) {
          sent_.push_back({m, std::move(bytes)});
        },
        [this](zab::ServerId peer) { return queued_[peer]; });
  }

  void write(tree::Database& db, int nodes) {
    if (db.last_zxid() == 0) db.apply(db.prepare_create_session(kSession, 30000, ++zxid_, 1000));
    for (int i = 0; i < nodes; ++i) {
      const std::string path = "/n" + std::to_string(next_node_++);
      db.apply(db.prepare(kSession, 1, OpCode::kCreate, create_body(path, "data:" + path), ++zxid_,
                          2000));
    }
  }

  static Message snap(zab::Zxid zxid) {
    return Message{
        .type = MsgType::kSnap, .from = kLeader, .to = kLearner, .epoch = 1, .zxid = zxid};
  }
  static Message commit(zab::Zxid zxid) {
    return Message{
        .type = MsgType::kCommit, .from = kLeader, .to = kLearner, .epoch = 1, .zxid = zxid};
  }

  // The types sent, in order ("Snap", "SnapChunk", ...; an empty
  // SnapChunk, the end, as "End").
  std::vector<std::string> kinds() const {
    std::vector<std::string> out;
    for (const Sent& s : sent_) {
      const bool end = s.m.type == MsgType::kSnapChunk && s.bytes.empty();
      out.push_back(end ? "End" : zab::to_string(s.m.type));
    }
    return out;
  }

  tree::Database leader_;
  std::vector<Sent> sent_;
  std::map<zab::ServerId, uint64_t> queued_;
  storage::MemoryEnv env_;
  int64_t zxid_ = 0;
  int next_node_ = 0;
};

TEST_F(SnapshotStreamTest, ASnapGoesOutBareAndItsStateFollowsInChunks) {
  write(leader_, 45);
  OutgoingSnapshots out = outgoing();
  out.send(snap(leader_.last_zxid()), leader_);
  ASSERT_EQ(kinds(), std::vector<std::string>{"Snap"});
  EXPECT_TRUE(sent_[0].bytes.empty());
  EXPECT_TRUE(out.streaming());
  out.pump(leader_);  // 30 nodes a pump: three chunks
  EXPECT_EQ(kinds(), (std::vector<std::string>{"Snap", "SnapChunk", "SnapChunk", "SnapChunk"}));
  out.pump(leader_);
  EXPECT_FALSE(out.streaming());
  EXPECT_EQ(kinds().back(), "End");
  for (const Sent& s : sent_) EXPECT_EQ(s.m.zxid, leader_.last_zxid());
}

TEST_F(SnapshotStreamTest, MessagesForTheLearnerWaitBehindTheStreamInOrder) {
  write(leader_, 25);
  OutgoingSnapshots out = outgoing();
  out.send(snap(leader_.last_zxid()), leader_);
  out.send(commit(7), leader_);
  out.send(commit(8), leader_);
  Message other = commit(9);
  other.to = 3;  // another learner: not held
  out.send(other, leader_);
  EXPECT_EQ(kinds(), (std::vector<std::string>{"Snap", "Commit"}));
  EXPECT_EQ(sent_.back().m.to, 3);
  while (out.streaming()) out.pump(leader_);
  ASSERT_EQ(kinds(), (std::vector<std::string>{"Snap", "Commit", "SnapChunk", "SnapChunk",
                                               "SnapChunk", "End", "Commit", "Commit"}));
  EXPECT_EQ(sent_[6].m.zxid, 7);
  EXPECT_EQ(sent_[7].m.zxid, 8);
  out.send(commit(10), leader_);  // the stream is over: sent at once
  EXPECT_EQ(kinds().back(), "Commit");
}

TEST_F(SnapshotStreamTest, AFullLinkWaitsAndADroppedStreamTakesWhatItHeld) {
  write(leader_, 25);
  OutgoingSnapshots out = outgoing();
  out.send(snap(leader_.last_zxid()), leader_);
  out.send(commit(7), leader_);
  queued_[kLearner] = 1 << 20;  // the learner does not read
  out.pump(leader_);
  EXPECT_EQ(kinds(), std::vector<std::string>{"Snap"});
  queued_[kLearner] = 0;
  out.drop(kLearner);
  out.pump(leader_);
  EXPECT_EQ(kinds(), std::vector<std::string>{"Snap"});
  EXPECT_FALSE(out.streaming());
}

TEST_F(SnapshotStreamTest, TheLearnerStagesTheStreamAndLoadsTheLeadersTree) {
  write(leader_, 100);
  OutgoingSnapshots out = outgoing();
  IncomingSnapshot in(env_, kLayout);
  out.send(snap(leader_.last_zxid()), leader_);
  ASSERT_TRUE(in.begin(sent_[0].m).ok());
  // The leader goes on applying while it walks: the state is fuzzy.
  const zab::Zxid snapped = leader_.last_zxid();
  out.pump(leader_);
  write(leader_, 20);
  while (out.streaming()) out.pump(leader_);
  std::optional<Message> ready;
  for (size_t i = 1; i < sent_.size(); ++i) {
    EXPECT_FALSE(ready) << "the Snap is ready only after the last chunk";
    auto step = in.chunk(sent_[i].m, sent_[i].bytes);
    ASSERT_TRUE(step.ok()) << step.status().message();
    ready = *step;
  }
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->type, MsgType::kSnap);
  EXPECT_EQ(ready->zxid, snapped);
  EXPECT_TRUE(in.received(snapped));
  // Nothing counts as staged for an interrupted install before the seal.
  auto staged = staged_snapshot_install(env_, kLayout);
  ASSERT_TRUE(staged.ok());
  EXPECT_FALSE(*staged);

  auto payload = in.seal();
  ASSERT_TRUE(payload.ok()) << payload.status().message();
  tree::Database learner;
  ASSERT_TRUE(learner.load_snapshot(*payload).ok());
  EXPECT_EQ(learner.last_zxid(), snapped);
  EXPECT_GT(learner.fuzzy_until(), snapped) << "the walk saw the 20 later creates";
  EXPECT_EQ(learner.fuzzy_until(), leader_.last_zxid());
  staged = staged_snapshot_install(env_, kLayout);
  ASSERT_TRUE(staged.ok());
  EXPECT_EQ(*staged, std::optional<int64_t>(snapped));
  in.abandon();  // say the install failed: nothing may look staged then
  staged = staged_snapshot_install(env_, kLayout);
  ASSERT_TRUE(staged.ok());
  EXPECT_FALSE(*staged);
}

TEST_F(SnapshotStreamTest, ReplayingTheTxnsAfterTheSnapRepairsTheFuzzyState) {
  write(leader_, 50);
  tree::Database replay_source;  // the same history, to take the txns from
  OutgoingSnapshots out =
      outgoing({.chunk_nodes = 5, .queued_bytes = 1 << 20, .nodes_per_pump = 5});
  out.send(snap(leader_.last_zxid()), leader_);
  const zab::Zxid snapped = leader_.last_zxid();
  // Txns after the Snap, interleaved with the walk: creates before and
  // after where it is, and deletes of nodes it passed and not yet reached.
  std::vector<tree::Txn> later;
  const auto apply = [&](OpCode op, const std::string& body) {
    tree::Txn txn = leader_.prepare(kSession, 2, op, body, ++zxid_, 3000);
    leader_.apply(txn);
    later.push_back(txn);
  };
  for (int round = 0; out.streaming(); ++round) {
    out.pump(leader_);
    apply(OpCode::kCreate, create_body("/a" + std::to_string(round), "x"));
    apply(OpCode::kCreate, create_body("/z" + std::to_string(round), "y"));
    if (round < 20)
      apply(OpCode::kDelete,
            zk::wire::encode(zk::wire::DeleteRequest{"/n" + std::to_string(round * 2), -1}));
  }
  IncomingSnapshot in(env_, kLayout);
  ASSERT_TRUE(in.begin(sent_[0].m).ok());
  for (size_t i = 1; i < sent_.size(); ++i) ASSERT_TRUE(in.chunk(sent_[i].m, sent_[i].bytes).ok());
  auto payload = in.seal();
  ASSERT_TRUE(payload.ok()) << payload.status().message();
  tree::Database learner;
  ASSERT_TRUE(learner.load_snapshot(*payload).ok());
  ASSERT_EQ(learner.last_zxid(), snapped);
  for (const tree::Txn& txn : later) learner.apply(txn);
  EXPECT_EQ(learner.last_zxid(), leader_.last_zxid());
  EXPECT_EQ(learner.digest(), leader_.digest());
  EXPECT_EQ(learner.compute_digest(), leader_.compute_digest());
  EXPECT_EQ(learner.counts().znodes, leader_.counts().znodes);
}

TEST_F(SnapshotStreamTest, AChunkOfNoStreamUnderWayIsDropped) {
  IncomingSnapshot in(env_, kLayout);
  Message chunk{.type = MsgType::kSnapChunk, .from = kLeader, .to = kLearner, .zxid = 5};
  auto step = in.chunk(chunk, "bytes");
  ASSERT_TRUE(step.ok());
  EXPECT_FALSE(*step);
  ASSERT_TRUE(in.begin(snap(7)).ok());
  step = in.chunk(chunk, "");  // another Snap's end
  ASSERT_TRUE(step.ok());
  EXPECT_FALSE(*step);
  EXPECT_FALSE(in.received(7));
}

}  // namespace
}  // namespace zkd::server
