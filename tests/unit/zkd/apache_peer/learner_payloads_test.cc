// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/learner_payloads.h"

#include <gtest/gtest.h>

#include "big_endian.h"

namespace zkd::apache {
namespace {

using testing::be32;
using testing::be64;

TEST(LearnerInfo, IsTheIdTheProtocolAndTheConfigVersion) {
  const LearnerInfo info{4, kLearnerProtocolVersion, 0x100000000};
  EXPECT_EQ(encode_learner_info(info), be64(4) + be32(0x10000) + be64(0x100000000));
  EXPECT_EQ(decode_learner_info(encode_learner_info(info)), info);
}

TEST(LearnerInfo, ReadsOlderLearnersShorterForms) {
  EXPECT_EQ(decode_learner_info(be64(4)), (LearnerInfo{4, kLearnerProtocolVersion, 0}));
  EXPECT_EQ(decode_learner_info(be64(4) + be32(1)), (LearnerInfo{4, 1, 0}));
  EXPECT_FALSE(decode_learner_info(be64(4) + be32(1) + be32(0)));
  EXPECT_FALSE(decode_learner_info(""));
}

TEST(LearnerPayloads, TouchesArePairsWithNoCount) {
  EXPECT_EQ(encode_touches({{0x100, 4000}, {0x200, 6000}}),
            be64(0x100) + be32(4000) + be64(0x200) + be32(6000));
  EXPECT_EQ(decode_touches(encode_touches({{0x100, 4000}, {0x200, 6000}})),
            (std::vector<SessionTouch>{{0x100, 4000}, {0x200, 6000}}));
  EXPECT_EQ(decode_touches(""), std::vector<SessionTouch>{});
  EXPECT_FALSE(decode_touches(be64(1)));
}

TEST(LearnerPayloads, RevalidateAsksWithATimeoutAndIsAnsweredWithAByte) {
  EXPECT_EQ(encode_revalidate_request(0x500, 30000), be64(0x500) + be32(30000));
  EXPECT_EQ(decode_revalidate_request(be64(0x500) + be32(30000)), (SessionTouch{0x500, 30000}));
  EXPECT_EQ(encode_revalidate_reply({0x500, true}), be64(0x500) + std::string(1, '\1'));
  const auto reply = decode_revalidate_reply(be64(0x500) + std::string(1, '\0'));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->session, 0x500);
  EXPECT_FALSE(reply->valid);
  EXPECT_FALSE(decode_revalidate_reply(be64(0x500)));
}

TEST(LearnerPayloads, AForwardedRequestIsItsIdsThenTheBody) {
  const ForwardedRequest r{0x700, 12, 1, "body"};
  EXPECT_EQ(encode_forwarded_request(r), be64(0x700) + be32(12) + be32(1) + "body");
  EXPECT_EQ(decode_forwarded_request(encode_forwarded_request(r)), r);
  EXPECT_FALSE(decode_forwarded_request(std::string(15, '\0')));
}

TEST(LearnerPayloads, EpochsAreOneInt) {
  EXPECT_EQ(encode_int32(kLearnerProtocolVersion), be32(0x10000));
  EXPECT_EQ(decode_int32(be32(kEpochAlreadyAccepted)), -1);
  EXPECT_FALSE(decode_int32(be64(1)));
}

}  // namespace
}  // namespace zkd::apache
