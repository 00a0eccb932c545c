// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/quorum_packet.h"

#include <gtest/gtest.h>

#include <string>

#include "big_endian.h"

namespace zkd::apache {
namespace {

using testing::be32;
using testing::be64;

constexpr size_t kMax = 1 << 20;

TEST(QuorumPacket, IsJuteBackToBackWithNoFrame) {
  const QuorumPacket ack{PacketType::kAck, 0x100000002, std::nullopt, std::nullopt};
  EXPECT_EQ(encode_quorum_packet(ack), be32(3) + be64(0x100000002) + be32(-1) + be32(-1));

  const QuorumPacket request{PacketType::kRequest, -1, std::string("abc"),
                             std::vector<AuthId>{{"digest", "u:x"}}};
  EXPECT_EQ(encode_quorum_packet(request),
            be32(1) + be64(-1) + be32(3) + "abc" + be32(1) + be32(6) + "digest" + be32(3) + "u:x");
}

TEST(QuorumPacket, DecodesWhatItEncodesOnePacketAtATime) {
  const QuorumPacket a{PacketType::kProposal, 7, std::string("txn"), std::nullopt};
  const QuorumPacket b{PacketType::kRequest, 0, std::string(), std::vector<AuthId>{}};
  std::string stream = encode_quorum_packet(a) + encode_quorum_packet(b);
  QuorumPacket got;
  size_t consumed = 0;
  std::string error;
  ASSERT_EQ(decode_quorum_packet(stream, got, consumed, kMax, error), Decode::kOk) << error;
  EXPECT_EQ(got, a);
  stream.erase(0, consumed);
  ASSERT_EQ(decode_quorum_packet(stream, got, consumed, kMax, error), Decode::kOk) << error;
  EXPECT_EQ(got, b);
  EXPECT_EQ(consumed, stream.size());
}

TEST(QuorumPacket, WaitsForItsLastByte) {
  const std::string bytes = encode_quorum_packet(
      {PacketType::kRequest, 1, std::string("data"), std::vector<AuthId>{{"ip", "127.0.0.1"}}});
  for (size_t n = 0; n < bytes.size(); ++n) {
    QuorumPacket got;
    size_t consumed = 0;
    std::string error;
    EXPECT_EQ(decode_quorum_packet(bytes.substr(0, n), got, consumed, kMax, error),
              Decode::kNeedMore)
        << n;
  }
}

TEST(QuorumPacket, RefusesUnknownTypesAndLengthsOutOfBounds) {
  QuorumPacket got;
  size_t consumed = 0;
  std::string error;
  EXPECT_EQ(
      decode_quorum_packet(be32(20) + be64(0) + be32(-1) + be32(-1), got, consumed, kMax, error),
      Decode::kBad);
  EXPECT_NE(error.find("type 20"), std::string::npos) << error;
  EXPECT_EQ(decode_quorum_packet(be32(0) + be64(0), got, consumed, kMax, error), Decode::kBad);
  EXPECT_EQ(decode_quorum_packet(be32(2) + be64(0) + be32(-2), got, consumed, kMax, error),
            Decode::kBad);
  EXPECT_EQ(decode_quorum_packet(be32(2) + be64(0) + be32(11), got, consumed, 10, error),
            Decode::kBad);
  EXPECT_NE(error.find("11"), std::string::npos) << error;
  EXPECT_EQ(
      decode_quorum_packet(be32(1) + be64(0) + be32(-1) + be32(-2), got, consumed, kMax, error),
      Decode::kBad);
  EXPECT_EQ(decode_quorum_packet(be32(1) + be64(0) + be32(-1) + be32(1 << 20), got, consumed, kMax,
                                 error),
            Decode::kBad);
}

TEST(QuorumPacket, NamesItsTypeInLogs) {
  EXPECT_EQ(to_string(PacketType::kInformAndActivate), "INFORMANDACTIVATE");
  EXPECT_EQ(to_string(static_cast<PacketType>(42)), "UNKNOWN(42)");
  EXPECT_EQ(describe({PacketType::kProposal, 0x100000003, std::string(57, 'x'), std::nullopt}),
            "PROPOSAL 0x100000003 (57 bytes)");
}

}  // namespace
}  // namespace zkd::apache
