// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/election_wire.h"

#include <gtest/gtest.h>

#include <string>

#include "big_endian.h"

namespace zkd::apache {
namespace {

using testing::be32;
using testing::be64;

TEST(ElectionHello, IsTheVersionTheIdAndOneAddressAsApacheSendsIt) {
  const std::string bytes = encode_election_hello({kElectionProtocolV1, 3, {"127.0.0.1:3890"}});
  EXPECT_EQ(bytes, be64(-65536) + be64(3) + be32(14) + "127.0.0.1:3890");
  ElectionHello hello;
  size_t consumed = 0;
  std::string error;
  ASSERT_EQ(decode_election_hello(bytes + "tail", hello, consumed, error), Decode::kOk);
  EXPECT_EQ(consumed, bytes.size());
  EXPECT_EQ(hello.server_id, 3);
  EXPECT_EQ(hello.addresses, std::vector<std::string>{"127.0.0.1:3890"});
}

TEST(ElectionHello, VersionTwoCarriesSeveralAddresses) {
  const std::string bytes = encode_election_hello({kElectionProtocolV2, 7, {"a:1", "b:2"}});
  EXPECT_EQ(bytes, be64(-65535) + be64(7) + be32(7) + "a:1|b:2");
  ElectionHello hello;
  size_t consumed = 0;
  std::string error;
  ASSERT_EQ(decode_election_hello(bytes, hello, consumed, error), Decode::kOk);
  EXPECT_EQ(hello.addresses, (std::vector<std::string>{"a:1", "b:2"}));
}

TEST(ElectionHello, WaitsForItsLastByte) {
  const std::string bytes = encode_election_hello({kElectionProtocolV1, 3, {"h:1"}});
  for (size_t n = 0; n < bytes.size(); ++n) {
    ElectionHello hello;
    size_t consumed = 0;
    std::string error;
    EXPECT_EQ(decode_election_hello(bytes.substr(0, n), hello, consumed, error), Decode::kNeedMore)
        << n;
  }
}

TEST(ElectionHello, APre35ServerSendsItsIdAlone) {
  ElectionHello hello;
  size_t consumed = 0;
  std::string error;
  ASSERT_EQ(decode_election_hello(be64(5), hello, consumed, error), Decode::kOk);
  EXPECT_EQ(hello.server_id, 5);
  EXPECT_EQ(consumed, 8u);
}

TEST(ElectionHello, RefusesAnUnknownVersionAndAnAddressOutOfBounds) {
  ElectionHello hello;
  size_t consumed = 0;
  std::string error;
  EXPECT_EQ(decode_election_hello(be64(-3) + be64(1), hello, consumed, error), Decode::kBad);
  EXPECT_NE(error.find("version -3"), std::string::npos) << error;
  EXPECT_EQ(decode_election_hello(be64(-65536) + be64(1) + be32(0), hello, consumed, error),
            Decode::kBad);
  EXPECT_EQ(decode_election_hello(be64(-65536) + be64(1) + be32(2049), hello, consumed, error),
            Decode::kBad);
  EXPECT_NE(error.find("2049"), std::string::npos) << error;
}

TEST(Notification, IsLaidOutAsFastLeaderElectionBuildsIt) {
  const Notification n{ServerState::kFollowing, 2, 0x100000005, 4, 1, 2, "server.1=x\nversion=0"};
  const std::string frame = encode_notification_frame(n);
  const std::string body = be32(1) + be64(2) + be64(0x100000005) + be64(4) + be64(1) + be32(2) +
                           be32(20) + "server.1=x\nversion=0";
  EXPECT_EQ(frame, be32(static_cast<int32_t>(body.size())) + body);

  const std::string stream = frame + "next";
  std::string_view got;
  size_t consumed = 0;
  ASSERT_EQ(next_election_frame(stream, got, consumed), Decode::kOk);
  EXPECT_EQ(consumed, frame.size());
  Notification decoded;
  std::string error;
  ASSERT_TRUE(decode_notification(got, decoded, error)) << error;
  EXPECT_EQ(decoded, n);
}

TEST(Notification, ReadsTheOlderShortForms) {
  Notification n;
  std::string error;
  // 28 bytes: no peer epoch (taken from the zxid), no version.
  ASSERT_TRUE(decode_notification(be32(0) + be64(3) + be64(0x200000001) + be64(9), n, error));
  EXPECT_EQ(n.state, ServerState::kLooking);
  EXPECT_EQ(n.peer_epoch, 2);
  EXPECT_EQ(n.version, 0);
  // 40 bytes: a peer epoch, and four bytes that are not read as a version.
  ASSERT_TRUE(decode_notification(
      be32(2) + be64(3) + be64(0x200000001) + be64(9) + be64(5) + be32(7), n, error));
  EXPECT_EQ(n.state, ServerState::kLeading);
  EXPECT_EQ(n.peer_epoch, 5);
  EXPECT_EQ(n.version, 0);
  EXPECT_TRUE(n.config.empty());
}

TEST(Notification, RefusesWhatApacheRefuses) {
  Notification n;
  std::string error;
  EXPECT_FALSE(decode_notification(std::string(27, '\0'), n, error));
  EXPECT_FALSE(decode_notification(be32(4) + std::string(40, '\0'), n, error));  // state 4
  EXPECT_NE(error.find("state 4"), std::string::npos) << error;
  const std::string head = be32(0) + be64(1) + be64(1) + be64(1) + be64(1) + be32(2);
  EXPECT_FALSE(decode_notification(head + be32(-1), n, error));
  EXPECT_FALSE(decode_notification(head + be32(10) + "short", n, error));
}

TEST(ElectionFrame, RefusesLengthsApacheRefuses) {
  std::string_view body;
  size_t consumed = 0;
  EXPECT_EQ(next_election_frame(be32(0), body, consumed), Decode::kBad);
  EXPECT_EQ(next_election_frame(be32(512 * 1024 + 1), body, consumed), Decode::kBad);
  EXPECT_EQ(next_election_frame(be32(512 * 1024), body, consumed), Decode::kNeedMore);
  EXPECT_EQ(next_election_frame(be32(5) + "abc", body, consumed), Decode::kNeedMore);
}

}  // namespace
}  // namespace zkd::apache
