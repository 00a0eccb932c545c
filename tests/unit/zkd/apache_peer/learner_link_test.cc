// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/learner_link.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "big_endian.h"

namespace zkd::apache {
namespace {

using testing::be32;
using zab::make_zxid;
using zab::MsgType;

constexpr zab::ServerId kSelf = 1;
constexpr zab::ServerId kLeader = 3;

QuorumPacket packet(PacketType type, int64_t zxid, zk::wire::Buffer data = std::nullopt) {
  return {type, zxid, std::move(data), std::nullopt};
}

zab::Message core(MsgType type, zab::Zxid zxid = 0, uint64_t attempt = 7) {
  zab::Message m;
  m.type = type;
  m.from = kSelf;
  m.to = kLeader;
  m.zxid = zxid;
  m.attempt = attempt;
  return m;
}

// A link through discovery: FOLLOWERINFO out, LEADERINFO (epoch 5) in,
// ACKEPOCH out with the learner's last zxid `last`.
class LearnerLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LearnerLink::Options options{kSelf, kLeader, false, 0, nullptr};
    options.read_forwarded = [](const std::string& payload) {
      ForwardedWrite w;
      if (payload == "touch") w.touches = {{0x11, 4000}};
      if (payload == "write") w.request = ForwardedRequest{0x11, 9, 1, "body"};
      return w;
    };
    link_ = std::make_unique<LearnerLink>(options);
    zab::Message info = core(MsgType::kFollowerInfo);
    info.epoch = 4;
    const QuorumPacket first = link_->open(info);
    EXPECT_EQ(first.type, PacketType::kFollowerInfo);
    EXPECT_EQ(first.zxid, make_zxid(4, 0));
    EXPECT_EQ(decode_learner_info(*first.data), (LearnerInfo{kSelf, kLearnerProtocolVersion, 0}));

    leader(packet(PacketType::kLeaderInfo, make_zxid(5, 0), be32(0x10000)));
    ASSERT_EQ(to_core_.size(), 1u);
    EXPECT_EQ(to_core_[0].message.type, MsgType::kLeaderInfo);
    EXPECT_EQ(to_core_[0].message.epoch, 5);
    EXPECT_EQ(to_core_[0].message.from, kLeader);
    EXPECT_EQ(to_core_[0].message.attempt, 7u);

    zab::Message ack = core(MsgType::kAckEpoch, make_zxid(4, 2));
    ack.epoch = 5;
    ack.current_epoch = 4;
    ack.fresh = true;
    const auto out = from_core(ack);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0], packet(PacketType::kAckEpoch, make_zxid(4, 2), be32(4)));
    to_core_.clear();
  }

  void leader(const QuorumPacket& p) {
    std::string error;
    ASSERT_TRUE(link_->from_leader(p, to_core_, to_leader_, error)) << error;
  }
  std::vector<QuorumPacket> from_core(const zab::Message& m) {
    std::vector<QuorumPacket> out;
    link_->from_core(m, out);
    return out;
  }
  // A DIFF sync: two committed proposals and one outstanding, NEWLEADER,
  // the core's ack of it, UPTODATE.
  void sync_by_diff() {
    leader(packet(PacketType::kDiff, make_zxid(4, 4)));
    leader(packet(PacketType::kProposal, make_zxid(4, 3), std::string("t3")));
    leader(packet(PacketType::kCommit, make_zxid(4, 3)));
    leader(packet(PacketType::kProposal, make_zxid(4, 4), std::string("t4")));
    leader(packet(PacketType::kCommit, make_zxid(4, 4)));
    leader(packet(PacketType::kProposal, make_zxid(4, 5), std::string("t5")));
    leader(packet(PacketType::kNewLeader, make_zxid(5, 0), std::string("server.1=...")));
  }

  std::unique_ptr<LearnerLink> link_;
  std::vector<net::PeerPacket> to_core_;
  std::vector<QuorumPacket> to_leader_;
};

TEST_F(LearnerLinkTest, ADiffBecomesOneDiffAndNewLeaderNamingItsLastEntry) {
  sync_by_diff();
  ASSERT_EQ(to_core_.size(), 2u);
  const zab::Message& diff = to_core_[0].message;
  EXPECT_EQ(diff.type, MsgType::kDiff);
  EXPECT_EQ(diff.zxid, make_zxid(4, 2));  // the learner's last, from its AckEpoch
  ASSERT_EQ(diff.entries.size(), 3u);
  EXPECT_EQ(diff.entries[0], (zab::Entry{make_zxid(4, 3), "t3"}));
  EXPECT_EQ(diff.entries[2], (zab::Entry{make_zxid(4, 5), "t5"}));
  EXPECT_EQ(diff.epoch, 5);
  const zab::Message& nl = to_core_[1].message;
  EXPECT_EQ(nl.type, MsgType::kNewLeader);
  EXPECT_EQ(nl.zxid, make_zxid(4, 5));
  EXPECT_TRUE(to_leader_.empty());
}

TEST_F(LearnerLinkTest, TheNewLeaderAckComesFirstThenOneAckPerOutstandingProposal) {
  sync_by_diff();
  const auto out = from_core(core(MsgType::kAckNewLeader, make_zxid(4, 5)));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], packet(PacketType::kAck, make_zxid(5, 0)));
  EXPECT_EQ(out[1], packet(PacketType::kAck, make_zxid(4, 5)));  // never committed in the sync
}

TEST_F(LearnerLinkTest, UpToDateCommitsWhatTheSyncCommittedAndIsAckedAgain) {
  sync_by_diff();
  from_core(core(MsgType::kAckNewLeader, make_zxid(4, 5)));
  to_core_.clear();
  leader(packet(PacketType::kUpToDate, -1));
  ASSERT_EQ(to_core_.size(), 1u);
  EXPECT_EQ(to_core_[0].message.type, MsgType::kUpToDate);
  EXPECT_EQ(to_core_[0].message.zxid, make_zxid(4, 4));
  ASSERT_EQ(to_leader_.size(), 1u);
  EXPECT_EQ(to_leader_[0], packet(PacketType::kAck, make_zxid(5, 0)));
}

TEST_F(LearnerLinkTest, CumulativeAcksBecomeOneAckPerProposal) {
  sync_by_diff();
  from_core(core(MsgType::kAckNewLeader, make_zxid(4, 5)));
  leader(packet(PacketType::kUpToDate, -1));
  to_core_.clear();
  for (uint32_t c = 1; c <= 3; ++c) {
    leader(packet(PacketType::kProposal, make_zxid(5, c), "p" + std::to_string(c)));
  }
  ASSERT_EQ(to_core_.size(), 3u);
  EXPECT_EQ(to_core_[1].message.type, MsgType::kProposal);
  EXPECT_EQ(to_core_[1].message.entries.at(0).zxid, make_zxid(5, 2));
  const auto acks = from_core(core(MsgType::kAck, make_zxid(5, 2)));
  ASSERT_EQ(acks.size(), 2u);
  EXPECT_EQ(acks[0].zxid, make_zxid(5, 1));
  EXPECT_EQ(acks[1].zxid, make_zxid(5, 2));
  EXPECT_EQ(from_core(core(MsgType::kAck, make_zxid(5, 3))).size(), 1u);
  to_core_.clear();
  leader(packet(PacketType::kCommit, make_zxid(5, 1)));
  ASSERT_EQ(to_core_.size(), 1u);
  EXPECT_EQ(to_core_[0].message.type, MsgType::kCommit);
  EXPECT_EQ(to_core_[0].message.zxid, make_zxid(5, 1));
}

TEST_F(LearnerLinkTest, PingsAreAnsweredWithTheTouchesGatheredAndTheLeadersZxid) {
  sync_by_diff();
  from_core(core(MsgType::kAckNewLeader, make_zxid(4, 5)));
  leader(packet(PacketType::kUpToDate, -1));
  zab::Message touch = core(MsgType::kRequest);
  touch.payload = "touch";
  EXPECT_TRUE(from_core(touch).empty());
  to_core_.clear();
  leader(packet(PacketType::kPing, make_zxid(5, 9)));
  ASSERT_EQ(to_core_.size(), 1u);
  EXPECT_EQ(to_core_[0].message.type, MsgType::kPing);
  // The last zxid the link gave the core, not the leader's: its last
  // proposed one may overtake the proposal in the leader's queues.
  EXPECT_EQ(to_core_[0].message.zxid, make_zxid(4, 5));
  const auto answer = from_core(core(MsgType::kPing, make_zxid(4, 5)));
  ASSERT_EQ(answer.size(), 1u);
  EXPECT_EQ(answer[0], packet(PacketType::kPing, make_zxid(5, 9), encode_touches({{0x11, 4000}})));
}

TEST_F(LearnerLinkTest, PingsBeforeUpToDateAreNeitherGivenNorAnswered) {
  sync_by_diff();
  to_core_.clear();
  leader(packet(PacketType::kPing, make_zxid(5, 0)));
  EXPECT_TRUE(to_core_.empty());
  EXPECT_TRUE(from_core(core(MsgType::kPing)).empty());
}

TEST_F(LearnerLinkTest, WritesAndSyncsAreForwardedAsRequests) {
  sync_by_diff();
  from_core(core(MsgType::kAckNewLeader, make_zxid(4, 5)));
  leader(packet(PacketType::kUpToDate, -1));
  zab::Message write = core(MsgType::kRequest);
  write.payload = "write";
  const auto out = from_core(write);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type, PacketType::kRequest);
  EXPECT_EQ(out[0].zxid, -1);
  EXPECT_EQ(decode_forwarded_request(*out[0].data), (ForwardedRequest{0x11, 9, 1, "body"}));

  zab::Message sync = core(MsgType::kSync);
  sync.request_id = 42;
  const auto sync_out = from_core(sync);
  ASSERT_EQ(sync_out.size(), 1u);
  EXPECT_EQ(decode_forwarded_request(*sync_out[0].data)->type, 9);
  to_core_.clear();
  leader(packet(PacketType::kSync, 0));
  ASSERT_EQ(to_core_.size(), 1u);
  EXPECT_EQ(to_core_[0].message.type, MsgType::kSyncReply);
  EXPECT_EQ(to_core_[0].message.request_id, 42u);
  EXPECT_EQ(to_core_[0].message.zxid, make_zxid(4, 4));  // the last COMMIT before it
}

TEST_F(LearnerLinkTest, ATruncIsPassedOnAndTheDiffStartsWhereItCut) {
  leader(packet(PacketType::kTrunc, make_zxid(4, 1)));
  leader(packet(PacketType::kNewLeader, make_zxid(5, 0)));
  ASSERT_EQ(to_core_.size(), 3u);
  EXPECT_EQ(to_core_[0].message.type, MsgType::kTrunc);
  EXPECT_EQ(to_core_[0].message.zxid, make_zxid(4, 1));
  EXPECT_EQ(to_core_[1].message.zxid, make_zxid(4, 1));
  EXPECT_TRUE(to_core_[1].message.entries.empty());
  EXPECT_EQ(to_core_[2].message.zxid, make_zxid(4, 1));
}

TEST_F(LearnerLinkTest, ASnapWaitsForItsStateThenGoesToTheCoreWithIt) {
  leader(packet(PacketType::kSnap, make_zxid(4, 9)));
  EXPECT_TRUE(link_->awaiting_snapshot());
  EXPECT_TRUE(to_core_.empty());
  link_->snapshot_received("state", to_core_);
  EXPECT_FALSE(link_->awaiting_snapshot());
  ASSERT_EQ(to_core_.size(), 1u);
  EXPECT_EQ(to_core_[0].message.type, MsgType::kSnap);
  EXPECT_EQ(to_core_[0].message.zxid, make_zxid(4, 9));
  EXPECT_EQ(to_core_[0].attachment, "state");
}

TEST_F(LearnerLinkTest, PacketsOutOfPlaceCloseTheLink) {
  std::string error;
  EXPECT_FALSE(link_->from_leader(packet(PacketType::kUpToDate, -1), to_core_, to_leader_, error));
  EXPECT_NE(error.find("UPTODATE out of place"), std::string::npos) << error;
  EXPECT_FALSE(
      link_->from_leader(packet(PacketType::kFollowerInfo, 0), to_core_, to_leader_, error));
}

}  // namespace
}  // namespace zkd::apache
