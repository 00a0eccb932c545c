// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/leader_link.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "big_endian.h"

namespace zkd::apache {
namespace {

using testing::be32;
using testing::be64;
using zab::make_zxid;
using zab::MsgType;

constexpr zab::ServerId kSelf = 3;     // the zkd leader
constexpr zab::ServerId kLearner = 1;  // the Apache learner
constexpr uint64_t kAttempt = 7;
const std::string kConfig = "server.1=127.0.0.1:2888:3888:participant\nversion=0";

QuorumPacket packet(PacketType type, int64_t zxid, zk::wire::Buffer data = std::nullopt) {
  return {type, zxid, std::move(data), std::nullopt};
}

// LearnerInfo as Apache's learners write it: int64 sid, int32 protocol
// version, int64 config version.
std::string learner_info(int64_t sid) { return be64(sid) + be32(0x10000) + be64(0); }

// A core message of the leader's, to the learner.
zab::Message core(MsgType type, zab::Zxid zxid = 0, zab::Epoch epoch = 5) {
  zab::Message m;
  m.type = type;
  m.from = kSelf;
  m.to = kLearner;
  m.epoch = epoch;
  m.zxid = zxid;
  m.attempt = kAttempt;
  return m;
}

// A Diff after `from`; `committed`: its last committed entry (none: `from`).
zab::Message diff(zab::Zxid from, std::vector<zab::Entry> entries, zab::Zxid committed = 0) {
  zab::Message m = core(MsgType::kDiff, from);
  m.entries = std::move(entries);
  m.committed = committed == 0 ? from : committed;
  return m;
}

// Three entries of epoch 4 after the learner's last, (4, 2).
std::vector<zab::Entry> three_entries() {
  return {{make_zxid(4, 3), "t3"}, {make_zxid(4, 4), "t4"}, {make_zxid(4, 5), "t5"}};
}

class LeaderLinkTest : public ::testing::Test {
 protected:
  void SetUp() override { make_link(); }

  void make_link() {
    LeaderLink::Options options;
    options.self = kSelf;
    options.attempt = kAttempt;
    options.config_text = [] { return kConfig; };
    options.write_forwarded = [this](const ForwardedWrite& w) {
      forwarded_.push_back(w);
      return "forwarded-" + std::to_string(forwarded_.size());
    };
    options.revalidate = [this](int64_t session, int32_t timeout_ms) {
      revalidated_.emplace_back(session, timeout_ms);
      return session == 0x11;
    };
    link_ = std::make_unique<LeaderLink>(options);
  }

  // FOLLOWERINFO (or OBSERVERINFO) of learner 1 with acceptedEpoch 4.
  zab::Message open(PacketType type = PacketType::kFollowerInfo) {
    std::string error;
    const auto info = link_->open(packet(type, make_zxid(4, 0), learner_info(kLearner)), error);
    EXPECT_TRUE(info.has_value()) << error;
    return info.value_or(zab::Message{});
  }

  std::vector<QuorumPacket> from_core(const zab::Message& m) {
    std::vector<QuorumPacket> out;
    link_->from_core(m, out);
    return out;
  }
  // The learner's packet, which must be accepted.
  void learner(const QuorumPacket& p) {
    std::string error;
    ASSERT_TRUE(link_->from_learner(p, to_core_, to_learner_, error)) << error;
  }

  // Through discovery: opened, LEADERINFO of epoch 5 out, a fresh ACKEPOCH
  // (currentEpoch 4, last zxid (4, 2)) in.
  void discover(PacketType type = PacketType::kFollowerInfo) {
    open(type);
    from_core(core(MsgType::kLeaderInfo));
    learner(packet(PacketType::kAckEpoch, make_zxid(4, 2), be32(4)));
    to_core_.clear();
  }
  // Through a DIFF sync of three_entries(), all committed, to the learner's
  // UPTODATE ack; the core's UpToDate commits up to (4, 5).
  void synced() {
    discover();
    from_core(diff(make_zxid(4, 2), three_entries(), make_zxid(4, 5)));
    from_core(core(MsgType::kNewLeader, make_zxid(4, 5)));
    learner(packet(PacketType::kAck, make_zxid(5, 0)));
    from_core(core(MsgType::kUpToDate, make_zxid(4, 5)));
    learner(packet(PacketType::kAck, make_zxid(5, 0)));
    to_core_.clear();
    to_learner_.clear();
  }

  std::unique_ptr<LeaderLink> link_;
  std::vector<net::PeerPacket> to_core_;
  std::vector<QuorumPacket> to_learner_;
  std::vector<ForwardedWrite> forwarded_;
  std::vector<std::pair<int64_t, int32_t>> revalidated_;
};

TEST_F(LeaderLinkTest, FollowerInfoOpensTheLinkAsTheCoresFollowerInfo) {
  const zab::Message info = open();
  EXPECT_EQ(info.type, MsgType::kFollowerInfo);
  EXPECT_EQ(info.from, kLearner);
  EXPECT_EQ(info.to, kSelf);
  EXPECT_EQ(info.epoch, 4);  // the learner's acceptedEpoch, from FOLLOWERINFO's zxid
  EXPECT_EQ(info.attempt, kAttempt);
  EXPECT_EQ(link_->learner(), kLearner);
}

TEST_F(LeaderLinkTest, OlderLearnerInfoFormsOpenTheLinkToo) {
  std::string error;
  // 3.4's LearnerInfo: the id and the protocol version, no config version.
  const auto info = link_->open(
      packet(PacketType::kFollowerInfo, make_zxid(2, 0), be64(kLearner) + be32(0x10000)), error);
  ASSERT_TRUE(info.has_value()) << error;
  EXPECT_EQ(info->from, kLearner);
  EXPECT_EQ(info->epoch, 2);
}

TEST_F(LeaderLinkTest, LeaderInfoCarriesTheNewEpochAndTheProtocolVersion) {
  open();
  const auto out = from_core(core(MsgType::kLeaderInfo));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], packet(PacketType::kLeaderInfo, make_zxid(5, 0), be32(0x10000)));
}

TEST_F(LeaderLinkTest, AFreshAckEpochBecomesTheCoresAckEpoch) {
  open();
  from_core(core(MsgType::kLeaderInfo));
  learner(packet(PacketType::kAckEpoch, make_zxid(4, 2), be32(4)));
  EXPECT_TRUE(to_learner_.empty());
  ASSERT_EQ(to_core_.size(), 1u);
  const zab::Message& ack = to_core_[0].message;
  EXPECT_EQ(ack.type, MsgType::kAckEpoch);
  EXPECT_EQ(ack.from, kLearner);
  EXPECT_EQ(ack.to, kSelf);
  EXPECT_EQ(ack.epoch, 5);
  EXPECT_EQ(ack.attempt, kAttempt);
  EXPECT_TRUE(ack.fresh);
  EXPECT_EQ(ack.current_epoch, 4);
  EXPECT_EQ(ack.zxid, make_zxid(4, 2));
  EXPECT_EQ(ack.committed, 0);  // an Apache learner truncates anywhere
}

TEST_F(LeaderLinkTest, AnAckEpochOfMinusOneIsNotFresh) {
  open();
  from_core(core(MsgType::kLeaderInfo));
  learner(packet(PacketType::kAckEpoch, make_zxid(4, 2), be32(-1)));
  ASSERT_EQ(to_core_.size(), 1u);
  const zab::Message& ack = to_core_[0].message;
  EXPECT_EQ(ack.type, MsgType::kAckEpoch);
  EXPECT_FALSE(ack.fresh);
  EXPECT_EQ(ack.current_epoch, 0);
  EXPECT_EQ(ack.zxid, make_zxid(4, 2));
}

TEST_F(LeaderLinkTest, AnAckEpochBeforeLeaderInfoClosesTheLink) {
  open();
  std::string error;
  EXPECT_FALSE(link_->from_learner(packet(PacketType::kAckEpoch, make_zxid(4, 2), be32(4)),
                                   to_core_, to_learner_, error));
  EXPECT_NE(error.find("ACKEPOCH out of place"), std::string::npos) << error;
  EXPECT_TRUE(to_core_.empty());
}

TEST_F(LeaderLinkTest, ADiffCommitsWhatIsCommittedAndProposesTheRestAfterNewLeader) {
  discover();
  const auto out = from_core(diff(make_zxid(4, 2), three_entries(), make_zxid(4, 4)));
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], packet(PacketType::kDiff, make_zxid(4, 5)));  // the last entry's zxid
  EXPECT_EQ(out[1], packet(PacketType::kProposal, make_zxid(4, 3), std::string("t3")));
  EXPECT_EQ(out[2], packet(PacketType::kCommit, make_zxid(4, 3)));
  EXPECT_EQ(out[3], packet(PacketType::kProposal, make_zxid(4, 4), std::string("t4")));
  EXPECT_EQ(out[4], packet(PacketType::kCommit, make_zxid(4, 4)));
  // An Apache 3.8 learner drops its pending proposals at NEWLEADER: the
  // uncommitted one comes after it, so that its COMMIT finds it.
  const auto nl = from_core(core(MsgType::kNewLeader, make_zxid(4, 5)));
  ASSERT_EQ(nl.size(), 2u);
  EXPECT_EQ(nl[0].type, PacketType::kNewLeader);
  EXPECT_EQ(nl[1], packet(PacketType::kProposal, make_zxid(4, 5), std::string("t5")));
}

TEST_F(LeaderLinkTest, AnEmptyDiffIsADiffAtTheLearnersLastZxid) {
  discover();
  const auto out = from_core(diff(make_zxid(4, 2), {}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], packet(PacketType::kDiff, make_zxid(4, 2)));
}

TEST_F(LeaderLinkTest, NewLeaderCarriesTheConfigurationText) {
  discover();
  from_core(diff(make_zxid(4, 2), three_entries()));
  const auto out = from_core(core(MsgType::kNewLeader, make_zxid(4, 5)));
  ASSERT_EQ(out.size(), 4u);  // and the Diff's uncommitted entries after it
  EXPECT_EQ(out[0], packet(PacketType::kNewLeader, make_zxid(5, 0), kConfig));
}

TEST_F(LeaderLinkTest, NewLeadersAckBecomesAckNewLeaderOfWhatCameBeforeIt) {
  discover();
  from_core(diff(make_zxid(4, 2), three_entries(), make_zxid(4, 4)));
  from_core(core(MsgType::kNewLeader, make_zxid(4, 5)));
  learner(packet(PacketType::kAck, make_zxid(5, 0)));  // counter 0: NEWLEADER's
  EXPECT_TRUE(to_learner_.empty());
  ASSERT_EQ(to_core_.size(), 1u);
  const zab::Message& ack = to_core_[0].message;
  EXPECT_EQ(ack.type, MsgType::kAckNewLeader);
  // The last entry before NEWLEADER, not (5, 0): (4, 5) came after it and is
  // acked by itself.
  EXPECT_EQ(ack.zxid, make_zxid(4, 4));
  EXPECT_EQ(ack.from, kLearner);
  EXPECT_EQ(ack.to, kSelf);
  EXPECT_EQ(ack.epoch, 5);
  EXPECT_EQ(ack.attempt, kAttempt);
}

TEST_F(LeaderLinkTest, UpToDateCommitsTheProposalsItCoversInOrderThenALaterCommitTheRest) {
  discover();
  from_core(diff(make_zxid(4, 2), three_entries()));
  from_core(core(MsgType::kNewLeader, make_zxid(4, 5)));
  learner(packet(PacketType::kAck, make_zxid(5, 0)));

  const auto up = from_core(core(MsgType::kUpToDate, make_zxid(4, 4)));
  ASSERT_EQ(up.size(), 3u);
  EXPECT_EQ(up[0], packet(PacketType::kCommit, make_zxid(4, 3)));
  EXPECT_EQ(up[1], packet(PacketType::kCommit, make_zxid(4, 4)));
  EXPECT_EQ(up[2], packet(PacketType::kUpToDate, -1));

  const auto commit = from_core(core(MsgType::kCommit, make_zxid(4, 5)));
  ASSERT_EQ(commit.size(), 1u);
  EXPECT_EQ(commit[0], packet(PacketType::kCommit, make_zxid(4, 5)));
  // Nothing is committed twice.
  EXPECT_TRUE(from_core(core(MsgType::kCommit, make_zxid(4, 5))).empty());
}

TEST_F(LeaderLinkTest, TheAckAfterUpToDateIsDropped) {
  discover();
  from_core(diff(make_zxid(4, 2), three_entries()));
  from_core(core(MsgType::kNewLeader, make_zxid(4, 5)));
  learner(packet(PacketType::kAck, make_zxid(5, 0)));
  from_core(core(MsgType::kUpToDate, make_zxid(4, 5)));
  to_core_.clear();
  learner(packet(PacketType::kAck, make_zxid(5, 0)));  // Apache's learner, after UPTODATE
  EXPECT_TRUE(to_core_.empty());
  EXPECT_TRUE(to_learner_.empty());
}

TEST_F(LeaderLinkTest, BroadcastProposalsAndAcksPassOneByOne) {
  synced();
  const zab::Message proposal = [] {
    zab::Message m = core(MsgType::kProposal);
    m.entries = {{make_zxid(5, 1), "p1"}};
    return m;
  }();
  const auto out = from_core(proposal);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], packet(PacketType::kProposal, make_zxid(5, 1), std::string("p1")));
  learner(packet(PacketType::kAck, make_zxid(5, 1)));
  ASSERT_EQ(to_core_.size(), 1u);
  EXPECT_EQ(to_core_[0].message.type, MsgType::kAck);
  EXPECT_EQ(to_core_[0].message.zxid, make_zxid(5, 1));
  const auto commit = from_core(core(MsgType::kCommit, make_zxid(5, 1)));
  ASSERT_EQ(commit.size(), 1u);
  EXPECT_EQ(commit[0], packet(PacketType::kCommit, make_zxid(5, 1)));
}

TEST_F(LeaderLinkTest, ATruncOpensTheSyncAndNoDiffPacketFollows) {
  discover();
  const auto trunc = from_core(core(MsgType::kTrunc, make_zxid(4, 1)));
  ASSERT_EQ(trunc.size(), 1u);
  EXPECT_EQ(trunc[0], packet(PacketType::kTrunc, make_zxid(4, 1)));
  const auto out = from_core(
      diff(make_zxid(4, 1), {{make_zxid(5, 1), "a"}, {make_zxid(5, 2), "b"}}, make_zxid(5, 2)));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0], packet(PacketType::kProposal, make_zxid(5, 1), std::string("a")));
  EXPECT_EQ(out[2], packet(PacketType::kProposal, make_zxid(5, 2), std::string("b")));
}

TEST_F(LeaderLinkTest, ASnapOpensTheSyncAndNoDiffPacketFollows) {
  discover();
  EXPECT_EQ(link_->snap_packet(make_zxid(4, 9)), packet(PacketType::kSnap, make_zxid(4, 9)));
  const auto out = from_core(diff(make_zxid(4, 9), {{make_zxid(4, 10), "x"}}, make_zxid(4, 10)));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], packet(PacketType::kProposal, make_zxid(4, 10), std::string("x")));
  EXPECT_EQ(out[1], packet(PacketType::kCommit, make_zxid(4, 10)));
}

TEST_F(LeaderLinkTest, AnObserversDiffCommitsEachProposal) {
  const zab::Message info = open(PacketType::kObserverInfo);
  EXPECT_EQ(info.type, MsgType::kFollowerInfo);
  EXPECT_EQ(info.from, kLearner);
  from_core(core(MsgType::kLeaderInfo));
  learner(packet(PacketType::kAckEpoch, make_zxid(4, 2), be32(4)));
  const auto out = from_core(diff(make_zxid(4, 2), three_entries()));
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(out[0], packet(PacketType::kDiff, make_zxid(4, 5)));
  for (uint32_t i = 0; i < 3; ++i) {
    const zab::Zxid zxid = make_zxid(4, 3 + i);
    EXPECT_EQ(out[1 + 2 * i], packet(PacketType::kProposal, zxid, "t" + std::to_string(3 + i)));
    EXPECT_EQ(out[2 + 2 * i], packet(PacketType::kCommit, zxid));
  }
  // Nothing is left to commit at UPTODATE.
  from_core(core(MsgType::kNewLeader, make_zxid(4, 5)));
  learner(packet(PacketType::kAck, make_zxid(5, 0)));
  const auto up = from_core(core(MsgType::kUpToDate, make_zxid(4, 5)));
  ASSERT_EQ(up.size(), 1u);
  EXPECT_EQ(up[0], packet(PacketType::kUpToDate, -1));
}

TEST_F(LeaderLinkTest, AnObserverIsInformed) {
  open(PacketType::kObserverInfo);
  from_core(core(MsgType::kLeaderInfo));
  zab::Message inform = core(MsgType::kInform, make_zxid(5, 0));
  inform.entries = {{make_zxid(5, 1), "i1"}};
  const auto out = from_core(inform);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], packet(PacketType::kInform, make_zxid(5, 1), std::string("i1")));
}

TEST_F(LeaderLinkTest, AReconfigurationIsCommittedWithCommitAndActivateNamingTheLeader) {
  synced();
  // TxnHeader: int64 session, int32 cxid, int64 zxid, int64 time, int32 type
  // (16: reconfig), then the record.
  const std::string txn =
      be64(0x11) + be32(1) + be64(make_zxid(5, 1)) + be64(0) + be32(16) + "record";
  zab::Message proposal = core(MsgType::kProposal);
  proposal.entries = {{make_zxid(5, 1), txn}};
  EXPECT_EQ(from_core(proposal)[0], packet(PacketType::kProposal, make_zxid(5, 1), txn));
  const auto out = from_core(core(MsgType::kCommit, make_zxid(5, 1)));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], packet(PacketType::kCommitAndActivate, make_zxid(5, 1), be64(kSelf)));
}

TEST_F(LeaderLinkTest, NoPingBeforeUpToDate) {
  open();
  EXPECT_TRUE(from_core(core(MsgType::kPing)).empty());
  from_core(core(MsgType::kLeaderInfo));
  EXPECT_TRUE(from_core(core(MsgType::kPing)).empty());
  learner(packet(PacketType::kAckEpoch, make_zxid(4, 2), be32(4)));
  EXPECT_TRUE(from_core(core(MsgType::kPing)).empty());
  from_core(diff(make_zxid(4, 2), three_entries(), make_zxid(4, 5)));
  EXPECT_TRUE(from_core(core(MsgType::kPing)).empty());
  from_core(core(MsgType::kNewLeader, make_zxid(4, 5)));
  EXPECT_TRUE(from_core(core(MsgType::kPing)).empty());
  learner(packet(PacketType::kAck, make_zxid(5, 0)));
  from_core(core(MsgType::kUpToDate, make_zxid(4, 5)));
  EXPECT_EQ(from_core(core(MsgType::kPing, make_zxid(4, 5))),
            std::vector<QuorumPacket>{packet(PacketType::kPing, make_zxid(4, 5))});
}

TEST_F(LeaderLinkTest, APingCommitsWhatItsCommitPointCovers) {
  discover();
  from_core(diff(make_zxid(4, 2), three_entries()));
  from_core(core(MsgType::kNewLeader, make_zxid(4, 5)));
  learner(packet(PacketType::kAck, make_zxid(5, 0)));
  from_core(core(MsgType::kUpToDate, make_zxid(4, 3)));
  zab::Message ping = core(MsgType::kPing, make_zxid(4, 5));
  ping.committed = make_zxid(4, 4);
  const auto out = from_core(ping);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], packet(PacketType::kCommit, make_zxid(4, 4)));
  EXPECT_EQ(out[1], packet(PacketType::kPing, make_zxid(4, 5)));
}

TEST_F(LeaderLinkTest, APingAnswerWithTouchesIsAForwardedTouchAndThePingAnswer) {
  synced();
  zab::Message ping = core(MsgType::kPing, make_zxid(4, 5));
  ping.request_id = 12;
  ping.committed = make_zxid(4, 5);
  EXPECT_EQ(from_core(ping), std::vector<QuorumPacket>{packet(PacketType::kPing, make_zxid(4, 5))});

  // The learner's answer: (int64 session, int32 timeout) per session touched.
  learner(packet(PacketType::kPing, make_zxid(4, 5),
                 be64(0x11) + be32(4000) + be64(0x22) + be32(6000)));
  EXPECT_TRUE(to_learner_.empty());
  ASSERT_EQ(forwarded_.size(), 1u);
  EXPECT_FALSE(forwarded_[0].request.has_value());
  EXPECT_EQ(forwarded_[0].touches, (std::vector<SessionTouch>{{0x11, 4000}, {0x22, 6000}}));
  ASSERT_EQ(to_core_.size(), 2u);
  EXPECT_EQ(to_core_[0].message.type, MsgType::kRequest);
  EXPECT_EQ(to_core_[0].message.payload, "forwarded-1");
  EXPECT_EQ(to_core_[0].message.from, kLearner);
  const zab::Message& answer = to_core_[1].message;
  EXPECT_EQ(answer.type, MsgType::kPing);
  EXPECT_EQ(answer.request_id, 12u);        // the last Ping's round
  EXPECT_EQ(answer.zxid, make_zxid(4, 5));  // what the learner acked: NEWLEADER's
  EXPECT_EQ(answer.from, kLearner);
  EXPECT_EQ(answer.epoch, 5);
}

TEST_F(LeaderLinkTest, APingAnswerWithoutTouchesIsOnlyThePingAnswer) {
  synced();
  zab::Message ping = core(MsgType::kPing, make_zxid(4, 5));
  ping.request_id = 3;
  from_core(ping);
  learner(packet(PacketType::kPing, make_zxid(4, 5)));
  EXPECT_TRUE(forwarded_.empty());
  ASSERT_EQ(to_core_.size(), 1u);
  EXPECT_EQ(to_core_[0].message.type, MsgType::kPing);
  EXPECT_EQ(to_core_[0].message.request_id, 3u);
}

TEST_F(LeaderLinkTest, APingAnswerWhoseSessionsDoNotReadClosesTheLink) {
  synced();
  std::string error;
  EXPECT_FALSE(link_->from_learner(packet(PacketType::kPing, 0, std::string(5, 'x')), to_core_,
                                   to_learner_, error));
  EXPECT_FALSE(error.empty());
}

TEST_F(LeaderLinkTest, AForwardedSyncBecomesACoreSyncAndItsReplyASync) {
  synced();
  // REQUEST: int64 session, int32 cxid, int32 type (9: sync), the body.
  learner(packet(PacketType::kRequest, -1, be64(0x11) + be32(5) + be32(9) + be32(1) + "/"));
  learner(packet(PacketType::kRequest, -1, be64(0x11) + be32(6) + be32(9) + be32(1) + "/"));
  EXPECT_TRUE(forwarded_.empty());
  ASSERT_EQ(to_core_.size(), 2u);
  EXPECT_EQ(to_core_[0].message.type, MsgType::kSync);
  EXPECT_EQ(to_core_[1].message.type, MsgType::kSync);
  EXPECT_NE(to_core_[0].message.request_id, to_core_[1].message.request_id);
  EXPECT_EQ(to_core_[0].message.from, kLearner);

  zab::Message reply = core(MsgType::kSyncReply, make_zxid(5, 3));
  reply.request_id = to_core_[0].message.request_id;
  const auto out = from_core(reply);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], packet(PacketType::kSync, 0));
}

TEST_F(LeaderLinkTest, AForwardedWriteBecomesACoreRequestWithItsAuth) {
  synced();
  QuorumPacket request = packet(PacketType::kRequest, -1, be64(0x11) + be32(8) + be32(1) + "body");
  request.auth = std::vector<AuthId>{{"digest", "user:hash"}};
  learner(request);
  ASSERT_EQ(forwarded_.size(), 1u);
  EXPECT_EQ(forwarded_[0].request, (ForwardedRequest{0x11, 8, 1, "body"}));
  EXPECT_EQ(forwarded_[0].auth, (std::vector<AuthId>{{"digest", "user:hash"}}));
  ASSERT_EQ(to_core_.size(), 1u);
  EXPECT_EQ(to_core_[0].message.type, MsgType::kRequest);
  EXPECT_EQ(to_core_[0].message.payload, "forwarded-1");
}

TEST_F(LeaderLinkTest, RevalidateIsAnsweredFromTheSessionCheck) {
  synced();
  learner(packet(PacketType::kRevalidate, -1, be64(0x11) + be32(4000)));
  learner(packet(PacketType::kRevalidate, -1, be64(0x99) + be32(4000)));
  EXPECT_TRUE(to_core_.empty());
  EXPECT_EQ(revalidated_, (std::vector<std::pair<int64_t, int32_t>>{{0x11, 4000}, {0x99, 4000}}));
  ASSERT_EQ(to_learner_.size(), 2u);
  // int64 session, one byte: 1 valid, 0 expired.
  EXPECT_EQ(to_learner_[0], packet(PacketType::kRevalidate, -1, be64(0x11) + std::string(1, '\1')));
  EXPECT_EQ(to_learner_[1], packet(PacketType::kRevalidate, -1, be64(0x99) + std::string(1, '\0')));
}

TEST_F(LeaderLinkTest, AFirstPacketOtherThanLearnerInfoIsRefused) {
  std::string error;
  EXPECT_FALSE(
      link_->open(packet(PacketType::kAckEpoch, make_zxid(4, 0), be32(4)), error).has_value());
  EXPECT_NE(error.find("not FOLLOWERINFO or OBSERVERINFO"), std::string::npos) << error;

  error.clear();
  EXPECT_FALSE(link_->open(packet(PacketType::kPing, 0), error).has_value());
  EXPECT_NE(error.find("PING"), std::string::npos) << error;

  error.clear();
  EXPECT_FALSE(link_->open(packet(PacketType::kFollowerInfo, make_zxid(4, 0)), error).has_value());
  EXPECT_NE(error.find("without a learner's id"), std::string::npos) << error;
}

TEST_F(LeaderLinkTest, PacketsALeaderSendsCloseTheLink) {
  synced();
  std::string error;
  EXPECT_FALSE(link_->from_learner(packet(PacketType::kCommit, make_zxid(5, 1)), to_core_,
                                   to_learner_, error));
  EXPECT_NE(error.find("COMMIT from a learner"), std::string::npos) << error;
}

}  // namespace
}  // namespace zkd::apache
