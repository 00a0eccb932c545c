// SPDX-License-Identifier: Apache-2.0
// Compressed snapshot files (snapshot.compression.method): written block by
// block, read back whole, checked and purged as uncompressed ones are.
#include "zkd/storage/snapshot_compression.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "zkd/storage/memory_env.h"
#include "zkd/storage/snapshot_file.h"

namespace zkd::storage {
namespace {

using ::testing::HasSubstr;

class SnapshotCompressionTest : public ::testing::TestWithParam<SnapshotCompression> {
 protected:
  void SetUp() override { ASSERT_TRUE(env_.create_dirs(dir_).ok()); }

  // A payload much like a tree's: repetitive paths and data.
  static std::vector<std::string> chunks() {
    std::vector<std::string> out;
    for (int c = 0; c < 5; ++c) {
      std::string chunk;
      for (int i = 0; i < 2000; ++i)
        chunk += "/zkbench-pop/p" + std::to_string(c * 2000 + i) + "=vvvvvvvvvv;";
      out.push_back(chunk);
    }
    out.push_back("");  // an empty piece is a block too
    return out;
  }

  void write(int64_t zxid, SnapshotCompression compression) {
    auto writer = SnapshotWriter::create(env_, dir_, zxid, compression);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    for (const std::string& chunk : chunks()) ASSERT_TRUE((*writer)->append(chunk).ok());
    ASSERT_TRUE((*writer)->finish().ok());
  }

  uint64_t size_of(int64_t zxid) {
    auto bytes = env_.read_file(dir_ + "/" + snapshot_name(zxid));
    EXPECT_TRUE(bytes.ok());
    return bytes.ok() ? bytes->size() : 0;
  }

  MemoryEnv env_;
  const std::string dir_ = "/data/snap";
};

TEST_P(SnapshotCompressionTest, ACompressedSnapshotReadsBackWholeAndSmaller) {
  write(0x20, GetParam());
  write(0x10, SnapshotCompression::kNone);
  std::string whole;
  for (const std::string& chunk : chunks()) whole += chunk;
  auto loaded = read_latest_snapshot(env_, dir_);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_TRUE(loaded->snapshot);
  EXPECT_EQ(loaded->snapshot->zxid, 0x20);
  EXPECT_EQ(loaded->snapshot->payload, whole);
  EXPECT_LT(size_of(0x20) * 3, size_of(0x10)) << "compressed " << compression_name(GetParam());
  // Moved, the payload still reads (it views the decompressed bytes).
  Snapshot moved = std::move(*loaded->snapshot);
  EXPECT_EQ(moved.payload, whole);
}

TEST_P(SnapshotCompressionTest, PurgeChecksACompressedSnapshotLikeAnyOther) {
  for (int64_t zxid : {1, 2, 3, 4}) write(zxid, GetParam());
  auto removed = purge(env_, dir_, dir_, 3);
  ASSERT_TRUE(removed.ok()) << removed.status().message();
  EXPECT_EQ(*removed, std::vector<std::string>{snapshot_name(1)});
}

TEST_P(SnapshotCompressionTest, ADamagedBlockNamesTheFileAndOffset) {
  const std::string first = compress_block(GetParam(), "a first block");
  std::string second = compress_block(GetParam(), "some bytes of a tree, some bytes of a tree");
  second[7] += 1;  // its raw length, one more than it holds
  auto wrong = decompress_blocks(GetParam(), first + second, "snapshot.y");
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(),
              HasSubstr("snapshot.y: the " + std::string(compression_name(GetParam())) +
                        " block at payload offset " + std::to_string(first.size()) +
                        " does not decompress"));
  auto cut = decompress_blocks(GetParam(), first.substr(0, first.size() - 1), "snapshot.z");
  ASSERT_FALSE(cut.ok());
  EXPECT_THAT(cut.status().message(), HasSubstr("block at payload offset 0 is cut short"));
}

INSTANTIATE_TEST_SUITE_P(Methods, SnapshotCompressionTest,
                         ::testing::Values(SnapshotCompression::kSnappy,
                                           SnapshotCompression::kGzip),
                         [](const auto& info) {
                           return std::string(compression_name(info.param));
                         });

TEST(SnapshotCompression, AnUnknownMethodInTheHeaderMakesTheFileInvalid) {
  MemoryEnv env;
  ASSERT_TRUE(env.create_dirs("/d").ok());
  auto writer = SnapshotWriter::create(env, "/d", 7, SnapshotCompression::kSnappy);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->append("tree").ok());
  ASSERT_TRUE((*writer)->finish().ok());
  auto bytes = env.read_file("/d/" + snapshot_name(7));
  ASSERT_TRUE(bytes.ok());
  std::string changed = *bytes;
  changed[12] = 9;  // the compression word's low byte (little-endian, as on disk)
  ASSERT_TRUE(env.write_file("/d/" + snapshot_name(7), changed).ok());
  auto read = read_snapshot_file(env, "/d/" + snapshot_name(7));
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(),
              HasSubstr("unsupported format version 2 with compression 9"));
}

}  // namespace
}  // namespace zkd::storage
