// SPDX-License-Identifier: Apache-2.0
#include "libzk/wire/frame.h"

#include <gtest/gtest.h>

#include "tests/unit/libzk/wire/hex.h"

namespace zk::wire {
namespace {

using testing::from_hex;

TEST(Frame, NeedsFourBytesForTheLength) {
  EXPECT_EQ(next_frame(from_hex("0000")).status, FrameStatus::kNeedMore);
}

TEST(Frame, NeedsTheWholePayload) {
  auto v = next_frame(from_hex("00000003 6162"));
  EXPECT_EQ(v.status, FrameStatus::kNeedMore);
  EXPECT_EQ(v.length, 3);
}

TEST(Frame, ExtractsOneFrameAndLeavesTheRest) {
  std::string buf = from_hex("00000002 6162 00000001");
  auto v = next_frame(buf);
  ASSERT_EQ(v.status, FrameStatus::kFrame);
  EXPECT_EQ(v.payload, "ab");
  EXPECT_EQ(v.consumed, 6u);
}

TEST(Frame, EmptyFrameIsAFrame) {
  auto v = next_frame(from_hex("00000000"));
  EXPECT_EQ(v.status, FrameStatus::kFrame);
  EXPECT_EQ(v.consumed, 4u);
}

TEST(Frame, MaximumLengthIsAcceptedOneMoreIsNot) {
  EXPECT_EQ(next_frame(from_hex("000fffff")).status, FrameStatus::kNeedMore);
  EXPECT_EQ(next_frame(from_hex("00100000")).status, FrameStatus::kBadLength);
}

TEST(Frame, NegativeLengthIsBad) {
  EXPECT_EQ(next_frame(from_hex("fffffffb")).status, FrameStatus::kBadLength);
}

TEST(Frame, FourLetterWordReadAsLengthIsBad) {
  // "ruok" after the handshake is read as a length of 0x72756f6b (§1.1).
  EXPECT_EQ(next_frame("ruok").status, FrameStatus::kBadLength);
}

}  // namespace
}  // namespace zk::wire
