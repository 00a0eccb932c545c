// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/leader_link.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "zkd/apache_peer/learner_payloads.h"

namespace zkd::apache {
namespace {

using zab::make_zxid;
using zab::MsgType;

constexpr zab::ServerId kSelf = 3;
constexpr zab::ServerId kLearner = 1;

zab::Message core(MsgType type, zab::Epoch epoch, zab::Zxid zxid = 0) {
  zab::Message m;
  m.type = type;
  m.from = kSelf;
  m.to = kLearner;
  m.epoch = epoch;
  m.zxid = zxid;
  return m;
}

std::vector<QuorumPacket> from_core(LeaderLink& link, const zab::Message& m) {
  std::vector<QuorumPacket> out;
  link.from_core(m, out);
  return out;
}

// An Apache learner that is syncing exits on a PING ("Got unexpected packet
// from leader"): the core's pings reach it only once it is up to date.
TEST(LeaderLink, PingsOnlyALearnerThatIsUpToDate) {
  LeaderLink link({kSelf, 7, nullptr, nullptr, nullptr});
  std::string error;
  ASSERT_TRUE(link.open({PacketType::kFollowerInfo, make_zxid(1, 0),
                         encode_learner_info({kLearner, kLearnerProtocolVersion, 0}), std::nullopt},
                        error))
      << error;
  zab::Message ping = core(MsgType::kPing, 2, make_zxid(2, 0));
  EXPECT_EQ(from_core(link, core(MsgType::kLeaderInfo, 2)).size(), 1u);
  EXPECT_TRUE(from_core(link, ping).empty());  // discovery
  EXPECT_EQ(from_core(link, core(MsgType::kDiff, 2, 0)).size(), 1u);
  EXPECT_TRUE(from_core(link, ping).empty());  // sync
  EXPECT_EQ(from_core(link, core(MsgType::kNewLeader, 2, 0)).size(), 1u);
  EXPECT_TRUE(from_core(link, ping).empty());  // NEWLEADER sent, not yet up to date
  const auto up_to_date = from_core(link, core(MsgType::kUpToDate, 2, 0));
  ASSERT_FALSE(up_to_date.empty());
  EXPECT_EQ(up_to_date.back().type, PacketType::kUpToDate);
  const auto pinged = from_core(link, ping);
  ASSERT_EQ(pinged.size(), 1u);
  EXPECT_EQ(pinged[0].type, PacketType::kPing);
}

}  // namespace
}  // namespace zkd::apache
