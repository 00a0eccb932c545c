// SPDX-License-Identifier: Apache-2.0
#include "libzk/wire/jute.h"

#include <gtest/gtest.h>

#include "tests/unit/libzk/wire/hex.h"

namespace zk::wire {
namespace {

using testing::from_hex;
using testing::to_hex;

TEST(Jute, IntegersAreBigEndianTwosComplement) {
  std::string out;
  Writer w(out);
  w.int32(-2);
  w.int64(0x0102030405060708);
  w.boolean(true);
  w.boolean(false);
  EXPECT_EQ(to_hex(out),
            "fffffffe"
            "0102030405060708"
            "01"
            "00");

  Reader r(out);
  EXPECT_EQ(r.int32(), -2);
  EXPECT_EQ(r.int64(), 0x0102030405060708);
  EXPECT_TRUE(r.boolean());
  EXPECT_FALSE(r.boolean());
  EXPECT_TRUE(r.at_end());
}

TEST(Jute, AnyNonZeroByteReadsAsTrue) {
  std::string bytes = from_hex("7f");
  Reader r(bytes);
  EXPECT_TRUE(r.boolean());
}

TEST(Jute, NullBufferDiffersFromEmptyBuffer) {
  std::string out;
  Writer w(out);
  w.buffer(Buffer{});
  w.buffer(Buffer{std::string{}});
  w.buffer(Buffer{"ab"});
  EXPECT_EQ(to_hex(out),
            "ffffffff"
            "00000000"
            "00000002"
            "6162");

  Reader r(out);
  EXPECT_EQ(r.buffer(), std::nullopt);
  EXPECT_EQ(r.buffer(), Buffer{""});
  EXPECT_EQ(r.buffer(), Buffer{"ab"});
  EXPECT_TRUE(r.at_end());
}

TEST(Jute, NullStringReadsAsEmpty) {
  std::string bytes = from_hex("ffffffff");
  Reader r(bytes);
  EXPECT_EQ(r.ustring(), "");
  EXPECT_TRUE(r.ok());
}

TEST(Jute, VectorOfStringsRoundTrips) {
  std::string out;
  Writer w(out);
  w.strings({"a", "bc"});
  EXPECT_EQ(to_hex(out),
            "00000002"
            "00000001"
            "61"
            "00000002"
            "6263");
  Reader r(out);
  EXPECT_EQ(r.strings(), (std::vector<std::string>{"a", "bc"}));
}

TEST(Jute, NullVectorReadsAsEmpty) {
  std::string bytes = from_hex("ffffffff");
  Reader r(bytes);
  EXPECT_TRUE(r.strings().empty());
  EXPECT_TRUE(r.ok());
}

TEST(Jute, ReadingPastTheEndFailsAndStaysFailed) {
  std::string bytes = from_hex("000000");
  Reader r(bytes);
  EXPECT_EQ(r.int32(), 0);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.int32(), 0);
  EXPECT_FALSE(r.ok());
}

TEST(Jute, BufferLongerThanInputFails) {
  std::string bytes = from_hex("00000005 6162");
  Reader r(bytes);
  EXPECT_EQ(r.buffer(), std::nullopt);
  EXPECT_FALSE(r.ok());
}

TEST(Jute, NegativeLengthOtherThanNullFails) {
  std::string bytes = from_hex("fffffffe");
  Reader r(bytes);
  r.buffer();
  EXPECT_FALSE(r.ok());
}

TEST(Jute, HugeVectorCountFailsWithoutAllocating) {
  std::string bytes = from_hex("7fffffff 00000000");
  Reader r(bytes);
  EXPECT_TRUE(r.strings().empty());
  EXPECT_FALSE(r.ok());
}

TEST(Jute, FrameLengthIsPatchedIn) {
  std::string out;
  Writer w(out);
  size_t start = w.begin_frame();
  w.int32(7);
  w.int32(-11);
  w.end_frame(start);
  EXPECT_EQ(to_hex(out),
            "00000008"
            "00000007"
            "fffffff5");
}

}  // namespace
}  // namespace zk::wire
