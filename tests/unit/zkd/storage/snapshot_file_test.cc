// SPDX-License-Identifier: Apache-2.0
#include "zkd/storage/snapshot_file.h"

#include <gtest/gtest.h>

#include "zkd/storage/memory_env.h"

namespace zkd::storage {
namespace {

class SnapshotFileTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(env_.create_dirs(dir_).ok()); }

  void write_snapshot(int64_t zxid, const std::vector<std::string>& chunks) {
    auto writer = SnapshotWriter::create(env_, dir_, zxid);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    for (const std::string& chunk : chunks) ASSERT_TRUE((*writer)->append(chunk).ok());
    Status s = (*writer)->finish();
    ASSERT_TRUE(s.ok()) << s.message();
  }

  LoadedSnapshot latest() {
    auto loaded = read_latest_snapshot(env_, dir_);
    EXPECT_TRUE(loaded.ok()) << loaded.status().message();
    return loaded.ok() ? std::move(*loaded) : LoadedSnapshot{};
  }

  std::string path(int64_t zxid) { return dir_ + "/" + snapshot_name(zxid); }

  MemoryEnv env_;
  const std::string dir_ = "/data/snap";
};

TEST_F(SnapshotFileTest, NameCarriesTheZxidInHex) {
  EXPECT_EQ(snapshot_name(0x100000a2c), "snapshot.0000000100000a2c");
}

TEST_F(SnapshotFileTest, ChunksRoundTripAndSurviveACrash) {
  write_snapshot(0x10, {"tree:", "", "/a=1;/b=2;", std::string(10000, 'x')});
  env_.drop_unsynced();  // finish() synced the file and the directory
  LoadedSnapshot loaded = latest();
  ASSERT_TRUE(loaded.snapshot.has_value());
  EXPECT_EQ(loaded.snapshot->zxid, 0x10);
  EXPECT_EQ(loaded.snapshot->name, "snapshot.0000000000000010");
  EXPECT_EQ(loaded.snapshot->payload, "tree:/a=1;/b=2;" + std::string(10000, 'x'));
  EXPECT_TRUE(loaded.skipped.empty());
  EXPECT_EQ(env_.files(), (std::vector<std::string>{path(0x10)}));
}

TEST_F(SnapshotFileTest, EmptyOrMissingDirectoryHasNoSnapshot) {
  EXPECT_FALSE(latest().snapshot.has_value());
  auto missing = read_latest_snapshot(env_, "/nowhere");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->snapshot.has_value());
}

TEST_F(SnapshotFileTest, UnfinishedSnapshotIsInvisible) {
  write_snapshot(5, {"old"});
  auto writer = SnapshotWriter::create(env_, dir_, 9);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->append("half of it").ok());
  LoadedSnapshot loaded = latest();
  ASSERT_TRUE(loaded.snapshot.has_value());
  EXPECT_EQ(loaded.snapshot->zxid, 5);
  EXPECT_TRUE(loaded.skipped.empty());
  auto names = list_snapshots(env_, dir_);
  ASSERT_TRUE(names.ok());
  ASSERT_EQ(names->size(), 1u);

  (*writer)->abandon();
  EXPECT_EQ(env_.files(), (std::vector<std::string>{path(5)}));
}

TEST_F(SnapshotFileTest, DestroyingAnUnfinishedWriterRemovesItsTemporaryFile) {
  {
    auto writer = SnapshotWriter::create(env_, dir_, 9);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->append("x").ok());
    EXPECT_EQ(env_.files().size(), 1u);
  }
  EXPECT_TRUE(env_.files().empty());
}

TEST_F(SnapshotFileTest, ListsNewestFirst) {
  write_snapshot(3, {"a"});
  write_snapshot(0x100000000, {"b"});
  write_snapshot(7, {"c"});
  auto names = list_snapshots(env_, dir_);
  ASSERT_TRUE(names.ok());
  ASSERT_EQ(names->size(), 3u);
  EXPECT_EQ((*names)[0].zxid, 0x100000000);
  EXPECT_EQ((*names)[1].zxid, 7);
  EXPECT_EQ((*names)[2].zxid, 3);
}

TEST_F(SnapshotFileTest, SnapshotCutShortIsSkippedForThePreviousOne) {
  write_snapshot(1, {"previous"});
  write_snapshot(2, {"newest payload"});
  const uint64_t size = env_.read_file(path(2))->size();
  for (uint64_t cut :
       {uint64_t{0}, uint64_t{10}, uint64_t{24}, uint64_t{30}, size - 20, size - 9, size - 1}) {
    SCOPED_TRACE("cut to " + std::to_string(cut));
    const std::string whole = *env_.read_file(path(2));
    ASSERT_TRUE(env_.truncate(path(2), cut).ok());
    LoadedSnapshot loaded = latest();
    ASSERT_TRUE(loaded.snapshot.has_value());
    EXPECT_EQ(loaded.snapshot->zxid, 1);
    EXPECT_EQ(loaded.snapshot->payload, "previous");
    ASSERT_EQ(loaded.skipped.size(), 1u);
    EXPECT_EQ(loaded.skipped[0].rfind("snapshot.0000000000000002: ", 0), 0u) << loaded.skipped[0];
    auto direct = read_snapshot_file(env_, path(2));
    ASSERT_FALSE(direct.ok());
    EXPECT_NE(direct.status().message().find(path(2)), std::string::npos);
    ASSERT_TRUE(env_.write_file(path(2), whole).ok());
  }
  EXPECT_EQ(latest().snapshot->zxid, 2);
}

TEST_F(SnapshotFileTest, FlippedBitAnywhereIsSkippedForThePreviousOne) {
  write_snapshot(1, {"previous"});
  write_snapshot(2, {"newest payload"});
  const uint64_t size = env_.read_file(path(2))->size();
  for (uint64_t offset = 0; offset < size; ++offset) {
    SCOPED_TRACE("bit flipped at " + std::to_string(offset));
    ASSERT_TRUE(env_.corrupt(path(2), offset, 0x08).ok());
    LoadedSnapshot loaded = latest();
    ASSERT_TRUE(loaded.snapshot.has_value());
    EXPECT_EQ(loaded.snapshot->zxid, 1);
    EXPECT_EQ(loaded.skipped.size(), 1u);
    ASSERT_TRUE(env_.corrupt(path(2), offset, 0x08).ok());  // undo
  }
  EXPECT_EQ(latest().snapshot->zxid, 2);
}

TEST_F(SnapshotFileTest, FileUnderTheWrongNameIsSkipped) {
  write_snapshot(1, {"one"});
  write_snapshot(2, {"two"});
  ASSERT_TRUE(env_.write_file(path(3), *env_.read_file(path(2))).ok());
  LoadedSnapshot loaded = latest();
  EXPECT_EQ(loaded.snapshot->zxid, 2);
  ASSERT_EQ(loaded.skipped.size(), 1u);
  EXPECT_NE(loaded.skipped[0].find("differs from the name"), std::string::npos);
}

TEST_F(SnapshotFileTest, NoValidSnapshotReportsEverySkippedOne) {
  write_snapshot(1, {"one"});
  write_snapshot(2, {"two"});
  ASSERT_TRUE(env_.corrupt(path(1), 25, 1).ok());
  ASSERT_TRUE(env_.truncate(path(2), 5).ok());
  LoadedSnapshot loaded = latest();
  EXPECT_FALSE(loaded.snapshot.has_value());
  ASSERT_EQ(loaded.skipped.size(), 2u);
  EXPECT_NE(loaded.skipped[0].find("snapshot.0000000000000002: cut short"), std::string::npos);
  EXPECT_NE(loaded.skipped[1].find("snapshot.0000000000000001: checksum mismatch"),
            std::string::npos);
}

TEST_F(SnapshotFileTest, RemoveSnapshotsAfterKeepsThoseAtOrBelowTheZxidDurably) {
  for (int64_t zxid : {5, 10, 15, 20}) write_snapshot(zxid, {"at " + std::to_string(zxid)});
  ASSERT_TRUE(env_.corrupt(path(20), 30, 1).ok());  // invalid ones go too
  const std::string in_progress = dir_ + "/snapshot.0000000000000019.tmp";
  ASSERT_TRUE(env_.write_file(in_progress, "partial").ok());

  ASSERT_TRUE(remove_snapshots_after(env_, dir_, 10).ok());
  env_.drop_unsynced();  // the removal was durable
  EXPECT_EQ(env_.files(), (std::vector<std::string>{path(5), path(10), in_progress}));
  EXPECT_EQ(latest().snapshot->zxid, 10);

  ASSERT_TRUE(remove_snapshots_after(env_, dir_, 7).ok());
  EXPECT_EQ(latest().snapshot->zxid, 5);
  ASSERT_TRUE(remove_snapshots_after(env_, dir_, 5).ok());  // nothing above 5 left
  EXPECT_EQ(latest().snapshot->zxid, 5);
  ASSERT_TRUE(remove_snapshots_after(env_, dir_, 0).ok());
  EXPECT_FALSE(latest().snapshot.has_value());
  EXPECT_TRUE(remove_snapshots_after(env_, "/nowhere", 0).ok());
}

}  // namespace
}  // namespace zkd::storage
