// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_files/apache_compression.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <snappy.h>
#include <zlib.h>

#include "libzk/wire/jute.h"
#include "tests/unit/zkd/apache_files/apache_test_util.h"

namespace zkd::apache {
namespace {

using test::gzip;
using ::testing::HasSubstr;

std::string sample() {
  std::string s;
  for (int i = 0; i < 300'000; ++i) s += std::to_string(i % 977) + "/znode";
  return s;
}

// What snappy-java's SnappyOutputStream writes: its header, then blocks of
// at most 32 KiB of input, each a length and a raw snappy block.
std::string snappy_java(std::string_view bytes) {
  std::string out("\x82SNAPPY\0", 8);
  zk::wire::Writer w(out);
  w.int32(1);
  w.int32(1);
  for (size_t at = 0; at < bytes.size(); at += 32 * 1024) {
    std::string block;
    snappy::Compress(bytes.data() + at, std::min<size_t>(32 * 1024, bytes.size() - at), &block);
    w.int32(static_cast<int32_t>(block.size()));
    out += block;
  }
  return out;
}

TEST(ApacheCompressionTest, GzipAsJavaWritesIt) {
  const std::string bytes = sample();
  auto out = decompress(Compression::kGzip, gzip(bytes), "snapshot.5.gz");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, bytes);
}

TEST(ApacheCompressionTest, SnappyAsSnappyJavaWritesIt) {
  const std::string bytes = sample();
  auto out = decompress(Compression::kSnappy, snappy_java(bytes), "snapshot.5.snappy");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, bytes);
}

TEST(ApacheCompressionTest, ACutShortGzipStreamNamesTheFile) {
  const std::string packed = gzip(sample());
  auto out = decompress(Compression::kGzip, std::string_view(packed).substr(0, packed.size() / 2),
                        "snapshot.5.gz");
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("snapshot.5.gz: compressed stream damaged at"));
}

TEST(ApacheCompressionTest, DamagedSnappyStreamsNameTheFileAndOffset) {
  const std::string packed = snappy_java(sample());
  auto cut = decompress(Compression::kSnappy, std::string_view(packed).substr(0, 100),
                        "snapshot.5.snappy");
  ASSERT_FALSE(cut.ok());
  EXPECT_THAT(cut.status().message(), HasSubstr("at offset 16: a block is cut short"));
  auto headless = decompress(Compression::kSnappy, "plain bytes, not snappy", "snapshot.5.snappy");
  ASSERT_FALSE(headless.ok());
  EXPECT_THAT(headless.status().message(), HasSubstr("no snappy-java stream header"));
}

TEST(ApacheCompressionTest, FileNamesTellTheCompression) {
  EXPECT_EQ(parse_file_name("snapshot.1a2b.gz")->compression, Compression::kGzip);
  EXPECT_EQ(parse_file_name("snapshot.1a2b.snappy")->compression, Compression::kSnappy);
  EXPECT_EQ(parse_file_name("snapshot.1a2b")->compression, Compression::kNone);
  EXPECT_EQ(parse_file_name("snapshot.1a2b")->zxid, 0x1a2b);
  EXPECT_EQ(parse_file_name("log.100000001")->kind, ApacheFileName::Kind::kLog);
  EXPECT_EQ(parse_file_name("log.100000001")->zxid, 0x100000001);
  EXPECT_FALSE(parse_file_name("snapshot.1a2b.tmp"));
  EXPECT_FALSE(parse_file_name("acceptedEpoch"));
  EXPECT_FALSE(parse_file_name("log."));
  EXPECT_EQ(snapshot_file_name(0x1a2b), "snapshot.1a2b");
}

}  // namespace
}  // namespace zkd::apache
