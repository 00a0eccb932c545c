// SPDX-License-Identifier: Apache-2.0
#include "zkd/peer/peer_codec.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "tests/unit/zkd/net/peer_packet_testing.h"

namespace zkd::net {
namespace {

using testing::expect_equal_packets;
using testing::full_packet;
using zab::MsgType;

constexpr int kTypeCount = static_cast<int>(MsgType::kLeadershipRequest) + 1;  // the last type

std::string random_bytes(std::mt19937_64& rng, size_t size) {
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

PeerPacket round_trip(const PeerPacket& packet) {
  const std::string bytes = encode_peer_packet(packet);
  EXPECT_EQ(bytes.size(), peer_packet_size(packet));  // what append_peer_packet reserves
  PeerPacket decoded;
  EXPECT_TRUE(decode_peer_packet(bytes, decoded));
  return decoded;
}

TEST(PeerCodecTest, EveryTypeRoundTripsWithEveryField) {
  for (int t = 0; t < kTypeCount; ++t) {
    SCOPED_TRACE(zab::to_string(static_cast<MsgType>(t)));
    PeerPacket packet = full_packet(static_cast<MsgType>(t), 7, 3, static_cast<uint64_t>(t));
    expect_equal_packets(packet, round_trip(packet));
  }
}

TEST(PeerCodecTest, DefaultPacketRoundTrips) {
  PeerPacket packet;
  PeerPacket decoded = full_packet(MsgType::kSnap, 1, 2, 1);  // every field overwritten
  ASSERT_TRUE(decode_peer_packet(encode_peer_packet(packet), decoded));
  expect_equal_packets(packet, decoded);
}

TEST(PeerCodecTest, LargeAttachmentAndPayloadsRoundTrip) {
  std::mt19937_64 rng(1);
  // Larger than jute's 2 MiB field limit, which does not apply here.
  PeerPacket packet = full_packet(MsgType::kSnap, 1, 2, 0, random_bytes(rng, 5 << 20));
  packet.message.entries.push_back({zab::make_zxid(3, 3), random_bytes(rng, 3 << 20)});
  packet.message.payload = random_bytes(rng, 3 << 20);
  expect_equal_packets(packet, round_trip(packet));
}

TEST(PeerCodecTest, ManyEntriesRoundTrip) {
  PeerPacket packet = full_packet(MsgType::kDiff, 1, 2, 0);
  packet.message.entries.clear();
  for (uint32_t i = 1; i <= 10000; ++i) {
    packet.message.entries.push_back({zab::make_zxid(4, i), std::to_string(i)});
  }
  expect_equal_packets(packet, round_trip(packet));
}

TEST(PeerCodecTest, EveryTruncationIsRejected) {
  const std::string bytes = encode_peer_packet(full_packet(MsgType::kDiff, 2, 1, 5));
  for (size_t size = 0; size < bytes.size(); ++size) {
    PeerPacket decoded;
    EXPECT_FALSE(decode_peer_packet(std::string_view(bytes).substr(0, size), decoded))
        << size << " of " << bytes.size() << " bytes";
  }
}

TEST(PeerCodecTest, TrailingBytesAreRejected) {
  PeerPacket decoded;
  EXPECT_FALSE(
      decode_peer_packet(encode_peer_packet(full_packet(MsgType::kAck, 2, 1, 5)) + "x", decoded));
}

TEST(PeerCodecTest, InvalidHeaderFieldsAreRejected) {
  const std::string good = encode_peer_packet(full_packet(MsgType::kPing, 2, 1, 0));
  PeerPacket decoded;
  ASSERT_TRUE(decode_peer_packet(good, decoded));
  auto with_byte = [&](size_t at, char value) {
    std::string bytes = good;
    bytes[at] = value;
    return bytes;
  };
  EXPECT_FALSE(decode_peer_packet(with_byte(3, 1), decoded)) << "version 1 (before digests)";
  EXPECT_FALSE(decode_peer_packet(with_byte(3, 3), decoded)) << "version 3";
  EXPECT_FALSE(decode_peer_packet(with_byte(7, kTypeCount), decoded)) << "type past the last";
  EXPECT_FALSE(decode_peer_packet(with_byte(4, -1), decoded)) << "negative type";
  // The state follows version, type, ten int64 fields, fresh and the vote.
  const size_t state_at = 4 + 4 + 10 * 8 + 1 + 3 * 8;
  EXPECT_TRUE(decode_peer_packet(with_byte(state_at + 3, 2), decoded));
  EXPECT_FALSE(decode_peer_packet(with_byte(state_at + 3, 3), decoded)) << "state past the last";
  EXPECT_FALSE(decode_peer_packet(with_byte(state_at + 4, -128), decoded))
      << "negative entry count";
  EXPECT_FALSE(decode_peer_packet(with_byte(state_at + 7, 100), decoded))
      << "more entries than bytes";
  // The first entry's payload length: a negative blob length.
  EXPECT_FALSE(decode_peer_packet(with_byte(state_at + 8 + 8, -128), decoded))
      << "negative blob length";
}

TEST(PeerCodecTest, RandomGarbageIsRejected) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes = random_bytes(rng, rng() % 300);
    if (bytes.size() >= 4) bytes.replace(0, 4, std::string("\0\0\0\2", 4));  // past the version
    PeerPacket decoded;
    EXPECT_FALSE(decode_peer_packet(bytes, decoded)) << i;
  }
}

TEST(PeerCodecTest, CorruptedPacketsDecodeSafely) {
  std::mt19937_64 rng(11);
  const std::string good = encode_peer_packet(full_packet(MsgType::kDiff, 2, 1, 5));
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string bytes = good;
    for (int flips = 1 + static_cast<int>(rng() % 4); flips > 0; --flips) {
      bytes[rng() % bytes.size()] = static_cast<char>(rng());
    }
    PeerPacket decoded;
    if (!decode_peer_packet(bytes, decoded)) continue;
    ++accepted;
    // What decodes is a packet whose encoding has the corrupted size.
    EXPECT_EQ(encode_peer_packet(decoded).size(), bytes.size());
  }
  // Most flips land in values, not lengths: those still decode.
  EXPECT_GT(accepted, 0);
}

TEST(PeerHelloTest, RoundTripsAndRejectsOtherBytes) {
  std::string hello = encode_peer_hello(0x0102030405060708);
  ASSERT_EQ(hello.size(), kPeerHelloSize);
  zab::ServerId id = 0;
  bool sasl = true;
  ASSERT_TRUE(decode_peer_hello(hello, id, sasl));
  EXPECT_EQ(id, 0x0102030405060708);
  EXPECT_FALSE(sasl);
  EXPECT_FALSE(decode_peer_hello(std::string_view(hello).substr(0, kPeerHelloSize - 1), id, sasl));
  EXPECT_FALSE(decode_peer_hello(hello + "x", id, sasl));
  std::string wrong_magic = hello;
  wrong_magic[0] ^= 1;
  EXPECT_FALSE(decode_peer_hello(wrong_magic, id, sasl));
  std::string wrong_version = hello;
  wrong_version[7] = 1;  // before digests
  EXPECT_FALSE(decode_peer_hello(wrong_version, id, sasl));

  ASSERT_TRUE(decode_peer_hello(encode_peer_hello(7, true), id, sasl));
  EXPECT_EQ(id, 7);
  EXPECT_TRUE(sasl);
}

TEST(PeerAuthTest, RoundTripsAndRejectsOtherBytes) {
  for (const PeerAuth& auth : {PeerAuth{PeerAuthStatus::kToken, std::string("abc")},
                               PeerAuth{PeerAuthStatus::kComplete, std::nullopt},
                               PeerAuth{PeerAuthStatus::kNotOffered, std::string()}}) {
    const std::string frame = encode_peer_auth_frame(auth);
    ASSERT_GT(frame.size(), 4u);
    PeerAuth back;
    ASSERT_TRUE(decode_peer_auth(std::string_view(frame).substr(4), back));
    EXPECT_EQ(back.status, auth.status);
    EXPECT_EQ(back.token, auth.token);
    EXPECT_FALSE(decode_peer_auth(std::string_view(frame).substr(4, frame.size() - 5), back));
  }
  PeerAuth back;
  EXPECT_FALSE(decode_peer_auth(encode_peer_packet(PeerPacket{}), back));  // a packet
}

}  // namespace
}  // namespace zkd::net
