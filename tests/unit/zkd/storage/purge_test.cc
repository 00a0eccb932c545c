// SPDX-License-Identifier: Apache-2.0
// purge() keeps the newest `retain` valid snapshots and every log segment
// that may hold a txn after the oldest of them.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/unit/zkd/storage/storage_test_util.h"
#include "zkd/storage/memory_env.h"
#include "zkd/storage/snapshot_file.h"
#include "zkd/storage/txn_log.h"

namespace zkd::storage {
namespace {

struct PurgeCase {
  std::string label;
  std::vector<int64_t> snapshots;          // valid snapshot zxids
  std::vector<int64_t> corrupt_snapshots;  // present but invalid
  int retain;
  std::vector<int64_t> kept_snapshots;  // every snapshot file left, sorted
  std::vector<int64_t> kept_segments;   // first zxids of the segments left
};

// The log: log.1 (1..10), log.b (11..20), log.15 (21..30), log.1f (31..40).
const std::vector<PurgeCase> kCases = {
    {"no snapshot: keep everything", {}, {}, 1, {}, {1, 11, 21, 31}},
    {"snapshot 9: log.1 still holds 10", {9}, {}, 1, {9}, {1, 11, 21, 31}},
    {"snapshot 10: log.1 is covered", {10}, {}, 1, {10}, {11, 21, 31}},
    {"snapshot 15", {15}, {}, 1, {15}, {11, 21, 31}},
    {"snapshot 20: log.b is covered", {20}, {}, 1, {20}, {21, 31}},
    {"retain 2 of 3", {5, 25, 35}, {}, 2, {25, 35}, {21, 31}},
    {"retain 3 of 3", {5, 25, 35}, {}, 3, {5, 25, 35}, {1, 11, 21, 31}},
    {"retain 0 means 1", {5, 25, 35}, {}, 0, {35}, {31}},
    {"the last segment always stays", {40}, {}, 1, {40}, {31}},
    {"snapshot past the log", {99}, {}, 1, {99}, {31}},
    {"newest is corrupt: keep the valid one before it", {25}, {35}, 1, {25, 35}, {21, 31}},
    {"older corrupt one is removed", {25}, {5}, 1, {25}, {21, 31}},
    {"only corrupt snapshots: keep everything", {}, {12, 30}, 1, {12, 30}, {1, 11, 21, 31}},
};

class PurgeTest : public ::testing::TestWithParam<PurgeCase> {};

TEST_P(PurgeTest, KeepsWhatRecoveryNeeds) {
  const PurgeCase& c = GetParam();
  MemoryEnv env;
  const std::string snap_dir = "/data/snap", log_dir = "/data/log";
  auto writer = TxnLogWriter::open(env, LogOptions{log_dir, 1 << 20, true}, LogTail{});
  ASSERT_TRUE(writer.ok());
  for (int64_t z = 1; z <= 40; ++z) {
    ASSERT_TRUE((*writer)->append(z, "t").ok());
    if (z % 10 == 0) {
      ASSERT_TRUE((*writer)->roll().ok());
    }
  }
  ASSERT_TRUE(env.create_dirs(snap_dir).ok());
  for (int64_t zxid : c.snapshots) {
    auto snap = SnapshotWriter::create(env, snap_dir, zxid);
    ASSERT_TRUE(snap.ok());
    ASSERT_TRUE((*snap)->finish().ok());
  }
  for (int64_t zxid : c.corrupt_snapshots) {
    ASSERT_TRUE(env.write_file(snap_dir + "/" + snapshot_name(zxid), "garbage").ok());
  }

  auto removed = purge(env, snap_dir, log_dir, c.retain);
  ASSERT_TRUE(removed.ok()) << removed.status().message();

  std::vector<int64_t> snapshots_left, segments_left;
  auto snapshots = list_snapshots(env, snap_dir);
  ASSERT_TRUE(snapshots.ok());
  for (const SnapshotName& s : *snapshots) snapshots_left.push_back(s.zxid);
  std::sort(snapshots_left.begin(), snapshots_left.end());
  auto segments = list_segments(env, log_dir);
  ASSERT_TRUE(segments.ok());
  for (const SegmentName& s : *segments) segments_left.push_back(s.first_zxid);
  EXPECT_EQ(snapshots_left, c.kept_snapshots);
  EXPECT_EQ(segments_left, c.kept_segments);
  const size_t total = c.snapshots.size() + c.corrupt_snapshots.size() + 4;
  EXPECT_EQ(removed->size(), total - snapshots_left.size() - segments_left.size());

  // Whatever was kept still recovers every txn after the newest snapshot.
  auto loaded = read_latest_snapshot(env, snap_dir);
  ASSERT_TRUE(loaded.ok());
  const int64_t from = loaded->snapshot ? loaded->snapshot->zxid : 0;
  auto log = read_txn_log(env, log_dir, from);
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_EQ(log.value().records.size(), static_cast<size_t>(std::max<int64_t>(0, 40 - from)));
}

INSTANTIATE_TEST_SUITE_P(Table, PurgeTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<PurgeCase>& info) {
                           return "case" + std::to_string(info.index);
                         });

TEST(PurgeTempFilesTest, RemovesLeftoversOlderThanTheNewestSnapshotOnly) {
  MemoryEnv env;
  const std::string dir = "/data";
  ASSERT_TRUE(env.create_dirs(dir).ok());
  auto leftover = SnapshotWriter::create(env, dir, 20);  // crashed long ago
  ASSERT_TRUE(leftover.ok());
  auto done = SnapshotWriter::create(env, dir, 30);
  ASSERT_TRUE(done.ok());
  ASSERT_TRUE((*done)->finish().ok());
  auto in_progress = SnapshotWriter::create(env, dir, 40);
  ASSERT_TRUE(in_progress.ok());
  ASSERT_TRUE((*in_progress)->append("still writing").ok());

  auto removed = purge(env, dir, dir, 1);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, (std::vector<std::string>{"snapshot.0000000000000014.tmp"}));
  ASSERT_TRUE((*in_progress)->finish().ok());
  auto loaded = read_latest_snapshot(env, dir);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->snapshot->zxid, 40);
}

}  // namespace
}  // namespace zkd::storage
