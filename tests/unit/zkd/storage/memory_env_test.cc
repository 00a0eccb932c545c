// SPDX-License-Identifier: Apache-2.0
#include "zkd/storage/memory_env.h"

#include <gtest/gtest.h>

#include "tests/unit/zkd/storage/storage_test_util.h"

namespace zkd::storage {
namespace {

std::string read(MemoryEnv& env, const std::string& path) {
  auto data = env.read_file(path);
  EXPECT_TRUE(data.ok()) << data.status().message();
  return data.ok() ? *data : std::string();
}

class MemoryEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(env_.create_dirs("/data/log").ok()); }
  MemoryEnv env_;
};

TEST_F(MemoryEnvTest, PreallocatedFileShowsZerosPastTheLogicalEnd) {
  auto file = env_.new_writable_file("/data/log/f", 8);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->append("abc").ok());
  EXPECT_EQ((*file)->size(), 3u);
  EXPECT_EQ(read(env_, "/data/log/f"), std::string("abc\0\0\0\0\0", 8));
  ASSERT_TRUE((*file)->append("0123456789").ok());  // past the preallocation
  EXPECT_EQ(read(env_, "/data/log/f"), "abc0123456789");
}

TEST_F(MemoryEnvTest, ViewFileIsASnapshotOfTheBytes) {
  auto file = env_.new_writable_file("/data/log/v", 0);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->append("abc").ok());
  auto view = env_.view_file("/data/log/v");
  ASSERT_TRUE(view.ok());
  ASSERT_TRUE((*file)->append("def").ok());
  EXPECT_EQ((*view)->bytes(), "abc");  // the bytes when it was opened
  EXPECT_FALSE(env_.view_file("/data/log/none").ok());
}

TEST_F(MemoryEnvTest, ReopenZeroesAfterTheOffsetAndAppendsThere) {
  ASSERT_TRUE(env_.write_file("/data/log/f", "abcdefgh").ok());
  auto file = env_.reopen_writable_file("/data/log/f", 3);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(read(env_, "/data/log/f"), std::string("abc\0\0\0\0\0", 8));
  ASSERT_TRUE((*file)->append("XY").ok());
  EXPECT_EQ(read(env_, "/data/log/f"), std::string("abcXY\0\0\0", 8));
  EXPECT_FALSE(env_.reopen_writable_file("/data/log/f", 9).ok());
}

TEST_F(MemoryEnvTest, DropUnsyncedKeepsOnlySyncedBytesOfDirSyncedFiles) {
  auto file = env_.new_writable_file("/data/log/f", 0);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->append("synced").ok());
  ASSERT_TRUE((*file)->sync().ok());
  ASSERT_TRUE(env_.sync_dir("/data/log").ok());
  ASSERT_TRUE((*file)->append("+lost").ok());
  env_.drop_unsynced();
  EXPECT_EQ(read(env_, "/data/log/f"), "synced");
}

TEST_F(MemoryEnvTest, DropUnsyncedForgetsFilesWhoseDirectoryWasNotSynced) {
  auto file = env_.new_writable_file("/data/log/f", 0);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->append("data").ok());
  ASSERT_TRUE((*file)->sync().ok());  // the data, but not the directory entry
  env_.drop_unsynced();
  EXPECT_FALSE(env_.file_exists("/data/log/f"));
}

TEST_F(MemoryEnvTest, DropUnsyncedRevertsRenamesAndRemovalsNotDirSynced) {
  ASSERT_TRUE(env_.write_file("/data/log/a", "A").ok());
  ASSERT_TRUE(env_.write_file("/data/log/b", "B").ok());
  ASSERT_TRUE(env_.rename_file("/data/log/a", "/data/log/c").ok());
  ASSERT_TRUE(env_.remove_file("/data/log/b").ok());
  EXPECT_EQ(env_.files(), (std::vector<std::string>{"/data/log/c"}));
  env_.drop_unsynced();
  EXPECT_EQ(env_.files(), (std::vector<std::string>{"/data/log/a", "/data/log/b"}));

  ASSERT_TRUE(env_.rename_file("/data/log/a", "/data/log/c").ok());
  ASSERT_TRUE(env_.sync_dir("/data/log").ok());
  env_.drop_unsynced();
  EXPECT_EQ(env_.files(), (std::vector<std::string>{"/data/log/b", "/data/log/c"}));
  EXPECT_EQ(read(env_, "/data/log/c"), "A");
}

TEST_F(MemoryEnvTest, CorruptAndTruncateChangeTheDurableBytes) {
  ASSERT_TRUE(env_.write_file("/data/log/f", "abcdef").ok());
  ASSERT_TRUE(env_.corrupt("/data/log/f", 1, 0x20).ok());
  ASSERT_TRUE(env_.truncate("/data/log/f", 4).ok());
  env_.drop_unsynced();
  EXPECT_EQ(read(env_, "/data/log/f"), "aBcd");
  EXPECT_FALSE(env_.corrupt("/data/log/f", 4, 1).ok());
  EXPECT_FALSE(env_.corrupt("/data/log/missing", 0, 1).ok());
}

TEST_F(MemoryEnvTest, ReadableFileReadsPiecesAndCountsThem) {
  ASSERT_TRUE(env_.write_file("/data/log/f", "0123456789").ok());
  auto reader = env_.open_readable_file("/data/log/f");
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  ASSERT_TRUE(env_.remove_file("/data/log/f").ok());  // still open: still readable
  testing::expect_digits_read_in_pieces(**reader);
  char buf[8];
  auto got = (*reader)->read(12, 8, buf);  // past the end
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 0u);
  EXPECT_EQ(env_.bytes_read(), 7u);
  EXPECT_EQ(env_.largest_read(), 4u);
  EXPECT_FALSE(env_.open_readable_file("/data/log/f").ok());
}

TEST_F(MemoryEnvTest, ListsNamesSortedAndReportsMissingThings) {
  ASSERT_TRUE(env_.write_file("/data/log/b", "").ok());
  ASSERT_TRUE(env_.write_file("/data/log/a", "").ok());
  ASSERT_TRUE(env_.create_dirs("/data/log/sub").ok());
  auto names = env_.list_dir("/data/log");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b", "sub"}));
  EXPECT_FALSE(env_.list_dir("/nope").ok());
  EXPECT_FALSE(env_.new_writable_file("/nope/f", 0).ok());
  auto missing = env_.read_file("/data/log/zzz");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/data/log/zzz"), std::string::npos);
}

}  // namespace
}  // namespace zkd::storage
