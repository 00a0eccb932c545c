// SPDX-License-Identifier: Apache-2.0
// Test helpers: peer packets with every field set, and a field-by-field
// comparison (Message has no operator==).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "zkd/peer/peer_codec.h"

namespace zkd::net::testing {

// A packet whose every field differs from its default and from the other
// fields, so a field dropped or swapped by the codec shows. `seq` varies it.
inline PeerPacket full_packet(zab::MsgType type, zab::ServerId from, zab::ServerId to, uint64_t seq,
                              std::string attachment = std::string("snap\0shot", 9)) {
  PeerPacket p;
  zab::Message& m = p.message;
  m.type = type;
  m.from = from;
  m.to = to;
  m.epoch = 3;
  m.current_epoch = 2;
  m.zxid = zab::make_zxid(3, 100 + static_cast<uint32_t>(seq));
  m.committed = zab::make_zxid(3, 99);
  m.round = 0x8000000000000007ull;  // the top bit survives the int64 encoding
  m.attempt = (uint64_t{5} << 32) | 11;
  m.request_id = seq;
  m.digest = seq ^ 0xd1d1d1d1d1d1d1d1ull;
  // One byte carries an AckEpoch's fresh, a Ping's busy, a Vote's nomination
  // and a FollowerInfo's observing.
  m.fresh = type == zab::MsgType::kAckEpoch;
  m.busy = type == zab::MsgType::kPing;
  m.nomination = type == zab::MsgType::kVote;
  m.observing = type == zab::MsgType::kFollowerInfo;
  m.vote = {.leader = 9, .zxid = zab::make_zxid(2, 8), .epoch = 2};
  m.state = static_cast<zab::PeerState>(seq % 3);
  m.entries = {{zab::make_zxid(3, 1), std::string("one\0", 4)}, {zab::make_zxid(3, 2), ""}};
  m.payload = "request " + std::to_string(seq);
  p.attachment = std::move(attachment);
  return p;
}

inline void expect_equal_packets(const PeerPacket& expected, const PeerPacket& actual) {
  const zab::Message& e = expected.message;
  const zab::Message& a = actual.message;
  EXPECT_EQ(e.type, a.type);
  EXPECT_EQ(e.from, a.from);
  EXPECT_EQ(e.to, a.to);
  EXPECT_EQ(e.epoch, a.epoch);
  EXPECT_EQ(e.current_epoch, a.current_epoch);
  EXPECT_EQ(e.zxid, a.zxid);
  EXPECT_EQ(e.committed, a.committed);
  EXPECT_EQ(e.round, a.round);
  EXPECT_EQ(e.attempt, a.attempt);
  EXPECT_EQ(e.request_id, a.request_id);
  EXPECT_EQ(e.digest, a.digest);
  EXPECT_EQ(e.fresh, a.fresh);
  EXPECT_EQ(e.busy, a.busy);
  EXPECT_EQ(e.nomination, a.nomination);
  EXPECT_EQ(e.observing, a.observing);
  EXPECT_EQ(e.vote, a.vote);
  EXPECT_EQ(e.state, a.state);
  EXPECT_EQ(e.entries, a.entries);
  EXPECT_EQ(e.payload, a.payload);
  EXPECT_EQ(expected.attachment.size(), actual.attachment.size());
  EXPECT_TRUE(expected.attachment == actual.attachment);  // no 5 MiB diff in the output
}

}  // namespace zkd::net::testing
