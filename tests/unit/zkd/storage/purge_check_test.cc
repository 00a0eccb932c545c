// SPDX-License-Identifier: Apache-2.0
// purge() checks snapshots in bounded pieces, by the same rules as the
// whole-file reader, and with one SnapshotChecks reads each file at most once.
#include <gtest/gtest.h>

#include <algorithm>

#include "zkd/storage/memory_env.h"
#include "zkd/storage/snapshot_file.h"
#include "zkd/storage/txn_log.h"

namespace zkd::storage {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kFraming = 44;  // header and trailer (docs/storage-format.md)

class PurgeCheckTest : public ::testing::Test {
 protected:
  // The log: log.1 (1..10), log.b (11..20), log.15 (21..30), log.1f (31..40).
  void SetUp() override {
    auto writer = TxnLogWriter::open(env_, LogOptions{log_dir_, 1 << 20, true}, LogTail{});
    ASSERT_TRUE(writer.ok());
    for (int64_t z = 1; z <= 40; ++z) {
      ASSERT_TRUE((*writer)->append(z, "t").ok());
      if (z % 10 == 0) {
        ASSERT_TRUE((*writer)->roll().ok());
      }
    }
    ASSERT_TRUE(env_.create_dirs(snap_dir_).ok());
  }

  // Writes a snapshot with `payload_size` bytes of payload, in 64 KiB chunks
  // that differ from each other; returns the file's size (without reading it).
  uint64_t write_snapshot(int64_t zxid, size_t payload_size) {
    auto writer = SnapshotWriter::create(env_, snap_dir_, zxid);
    EXPECT_TRUE(writer.ok());
    if (!writer.ok()) return 0;
    for (size_t done = 0; done < payload_size;) {
      std::string chunk(std::min<size_t>(65536, payload_size - done), 'a');
      for (size_t i = 0; i < chunk.size(); i += 97) chunk[i] = static_cast<char>(done / 65536 + i);
      EXPECT_TRUE((*writer)->append(chunk).ok());
      done += chunk.size();
    }
    EXPECT_TRUE((*writer)->finish().ok());
    return payload_size + kFraming;
  }

  // Bytes read since `before` are those of reading each of `sizes` once (a
  // check reads the header and trailer separately, so a little more).
  void expect_read_once_each(uint64_t before, const std::vector<uint64_t>& sizes) {
    uint64_t total = 0;
    for (uint64_t size : sizes) total += size;
    const uint64_t read = env_.bytes_read() - before;
    EXPECT_GE(read, total);
    EXPECT_LE(read, total + kFraming * sizes.size());
  }

  std::string path(int64_t zxid) const { return snap_dir_ + "/" + snapshot_name(zxid); }

  void purge_ok(int retain, SnapshotChecks* checks = nullptr) {
    auto removed = checks ? purge(env_, snap_dir_, log_dir_, retain, *checks)
                          : purge(env_, snap_dir_, log_dir_, retain);
    ASSERT_TRUE(removed.ok()) << removed.status().message();
  }

  std::vector<int64_t> snapshots_left() {
    std::vector<int64_t> zxids;
    for (const SnapshotName& s : *list_snapshots(env_, snap_dir_)) zxids.push_back(s.zxid);
    std::sort(zxids.begin(), zxids.end());
    return zxids;
  }

  std::vector<int64_t> segments_left() {
    std::vector<int64_t> zxids;
    for (const SegmentName& s : *list_segments(env_, log_dir_)) zxids.push_back(s.first_zxid);
    return zxids;
  }

  MemoryEnv env_;
  const std::string snap_dir_ = "/data/snap", log_dir_ = "/data/log";
};

TEST_F(PurgeCheckTest, CorruptByteDeepInALargeSnapshotIsFoundReadingBoundedPieces) {
  write_snapshot(15, 100);
  const uint64_t size = write_snapshot(35, 5 * kMiB + 777);
  for (uint64_t offset : {kMiB - 1, kMiB, size / 2, size - 21}) {
    SCOPED_TRACE("byte " + std::to_string(offset) + " of " + std::to_string(size));
    ASSERT_TRUE(env_.corrupt(path(35), offset, 0x10).ok());
    purge_ok(1);
    // The corrupt newest does not count: snapshot 15 and the log after it stay.
    EXPECT_EQ(snapshots_left(), (std::vector<int64_t>{15, 35}));
    EXPECT_EQ(segments_left(), (std::vector<int64_t>{11, 21, 31}));
    ASSERT_TRUE(env_.corrupt(path(35), offset, 0x10).ok());  // undo
  }
  EXPECT_LE(env_.largest_read(), kMiB);  // never held more than that of the file
  // Intact, the large snapshot is the one kept.
  const uint64_t bytes_before = env_.bytes_read();
  purge_ok(1);
  EXPECT_EQ(snapshots_left(), (std::vector<int64_t>{35}));
  EXPECT_EQ(segments_left(), (std::vector<int64_t>{31}));
  EXPECT_GE(env_.bytes_read() - bytes_before, size - 20);  // read to its checksum
}

TEST_F(PurgeCheckTest, ASnapshotCheckedOnceIsNotReadAgain) {
  SnapshotChecks checks;
  const uint64_t s25 = write_snapshot(25, 300000);
  const uint64_t s35 = write_snapshot(35, 200000);
  uint64_t before = env_.bytes_read();
  purge_ok(2, &checks);
  expect_read_once_each(before, {s25, s35});

  before = env_.bytes_read();
  purge_ok(2, &checks);
  EXPECT_EQ(env_.bytes_read() - before, 0u);
  EXPECT_EQ(snapshots_left(), (std::vector<int64_t>{25, 35}));

  const uint64_t s38 = write_snapshot(38, 1000);
  before = env_.bytes_read();
  purge_ok(2, &checks);
  expect_read_once_each(before, {s38});  // only the new one
  EXPECT_EQ(snapshots_left(), (std::vector<int64_t>{35, 38}));
  EXPECT_EQ(segments_left(), (std::vector<int64_t>{31}));

  // Without the checks object every candidate is read again.
  before = env_.bytes_read();
  purge_ok(2);
  expect_read_once_each(before, {s35, s38});
}

TEST_F(PurgeCheckTest, AFileWhoseSizeChangedIsCheckedAgainAndAnInvalidOneOnce) {
  SnapshotChecks checks;
  write_snapshot(15, 1000);
  const uint64_t s35 = write_snapshot(35, 1000);
  purge_ok(1, &checks);
  EXPECT_EQ(snapshots_left(), (std::vector<int64_t>{35}));

  write_snapshot(15, 1000);  // an older snapshot again, to fall back on
  ASSERT_TRUE(env_.truncate(path(35), s35 - 1).ok());
  uint64_t before = env_.bytes_read();
  purge_ok(1, &checks);
  EXPECT_GT(env_.bytes_read() - before, 0u);
  EXPECT_EQ(snapshots_left(), (std::vector<int64_t>{15, 35}));  // 35 is now invalid

  before = env_.bytes_read();
  purge_ok(1, &checks);
  EXPECT_EQ(env_.bytes_read() - before, 0u);  // both verdicts remembered
  EXPECT_EQ(snapshots_left(), (std::vector<int64_t>{15, 35}));
}

// The streaming check and the whole-file reader apply one set of rules.
TEST_F(PurgeCheckTest, StreamingCheckAgreesWithTheWholeFileReader) {
  const uint64_t size = write_snapshot(2, 100);
  ASSERT_EQ(env_.read_file(path(2))->size(), size);
  const std::string whole = *env_.read_file(path(2));
  auto agree = [&](bool expected_valid) {
    SnapshotChecks fresh;
    auto streamed = fresh.valid(env_, snap_dir_, snapshot_name(2));
    ASSERT_TRUE(streamed.ok()) << streamed.status().message();
    EXPECT_EQ(*streamed, expected_valid);
    EXPECT_EQ(read_snapshot_file(env_, path(2)).ok(), expected_valid);
  };
  agree(true);
  for (uint64_t offset = 0; offset < size; ++offset) {
    SCOPED_TRACE("bit flipped at " + std::to_string(offset));
    ASSERT_TRUE(env_.corrupt(path(2), offset, 0x08).ok());
    agree(false);
    ASSERT_TRUE(env_.corrupt(path(2), offset, 0x08).ok());
  }
  for (uint64_t cut : {uint64_t{0}, uint64_t{43}, uint64_t{44}, size - 1}) {
    SCOPED_TRACE("cut to " + std::to_string(cut));
    ASSERT_TRUE(env_.truncate(path(2), cut).ok());
    agree(false);
    ASSERT_TRUE(env_.write_file(path(2), whole).ok());
  }
  // The right bytes under another snapshot's name.
  ASSERT_TRUE(env_.write_file(snap_dir_ + "/" + snapshot_name(3), whole).ok());
  SnapshotChecks fresh;
  auto renamed = fresh.valid(env_, snap_dir_, snapshot_name(3));
  ASSERT_TRUE(renamed.ok());
  EXPECT_FALSE(*renamed);
  EXPECT_FALSE(read_snapshot_file(env_, snap_dir_ + "/" + snapshot_name(3)).ok());
  agree(true);
}

TEST_F(PurgeCheckTest, AMissingFileIsAnErrorNotAVerdict) {
  SnapshotChecks checks;
  auto missing = checks.valid(env_, snap_dir_, snapshot_name(9));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(snapshot_name(9)), std::string::npos);
}

}  // namespace
}  // namespace zkd::storage
