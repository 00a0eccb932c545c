// SPDX-License-Identifier: Apache-2.0
// Writing and reading the txn log on a healthy disk (MemoryEnv).
#include "zkd/storage/txn_log.h"

#include <gtest/gtest.h>

#include "tests/unit/zkd/storage/storage_test_util.h"
#include "zkd/storage/memory_env.h"

namespace zkd::storage {
namespace {

using testing::append_records;
using testing::make_records;
using testing::same_records;
using testing::zxids_of;

class TxnLogTest : public ::testing::Test {
 protected:
  RecoveredLog recover(int64_t after_zxid = 0) {
    auto log = read_txn_log(env_, options_.dir, after_zxid);
    EXPECT_TRUE(log.ok()) << log.status().message();
    return log.ok() ? std::move(*log) : RecoveredLog{};
  }
  std::vector<SegmentName> segments() {
    auto listed = list_segments(env_, options_.dir);
    EXPECT_TRUE(listed.ok());
    return listed.ok() ? *listed : std::vector<SegmentName>{};
  }

  MemoryEnv env_;
  LogOptions options_{"/data/log", 1024, true};
};

TEST_F(TxnLogTest, NamesCarryTheFirstZxidInHex) {
  EXPECT_EQ(segment_name(0x100000001), "log.0000000100000001");
  EXPECT_EQ(segment_name(0), "log.0000000000000000");
}

TEST_F(TxnLogTest, MissingDirectoryIsAnEmptyLog) {
  RecoveredLog log = recover();
  EXPECT_TRUE(log.records.empty());
  EXPECT_EQ(log.tail.segment, "");
  EXPECT_EQ(log.repaired, "");
}

TEST_F(TxnLogTest, ManyRecordsRoundTripAcrossSegments) {
  std::vector<LogRecord> records;
  for (int64_t z = 1; z <= 500; ++z) records.push_back({z, testing::txn_bytes(z, z % 97)});
  append_records(env_, options_, LogTail{}, records);

  std::vector<SegmentName> segs = segments();
  ASSERT_GT(segs.size(), 5u);
  EXPECT_EQ(segs.front().first_zxid, 1);
  for (const SegmentName& seg : segs) {
    auto data = env_.read_file(options_.dir + "/" + seg.name);
    ASSERT_TRUE(data.ok());
    EXPECT_EQ(data->size(), options_.preallocate) << seg.name;  // preallocated, not grown
    EXPECT_EQ(seg.name, segment_name(seg.first_zxid));
  }
  RecoveredLog log = recover();
  EXPECT_TRUE(same_records(log.records, records));
  EXPECT_EQ(log.repaired, "");
  EXPECT_EQ(log.tail.segment, segs.back().name);
  EXPECT_EQ(log.tail.last_zxid, 500);

  // Every segment starts with the record its name says.
  for (const SegmentName& seg : segs) {
    auto contents = read_segment_file(env_, options_.dir + "/" + seg.name);
    ASSERT_TRUE(contents.ok());
    EXPECT_TRUE(contents->status.ok()) << contents->status.message();
    ASSERT_FALSE(contents->records.empty());
    EXPECT_EQ(contents->records.front().zxid, seg.first_zxid);
  }
}

TEST_F(TxnLogTest, ReturnsOnlyRecordsAfterTheGivenZxid) {
  append_records(env_, options_, LogTail{}, make_records(1, 100));
  RecoveredLog log = recover(63);
  ASSERT_EQ(log.records.size(), 37u);
  EXPECT_EQ(log.records.front().zxid, 64);
  EXPECT_EQ(log.tail.last_zxid, 100);
  EXPECT_TRUE(recover(100).records.empty());
}

TEST_F(TxnLogTest, RecordBiggerThanASegmentGetsASegmentOfItsOwn) {
  std::vector<LogRecord> records = make_records(1, 3);
  records.push_back({4, std::string(5000, 'x')});
  auto tail = make_records(5, 6);
  records.insert(records.end(), tail.begin(), tail.end());
  append_records(env_, options_, LogTail{}, records);
  std::vector<SegmentName> segs = segments();
  ASSERT_EQ(segs.size(), 3u);
  EXPECT_EQ(segs[1].first_zxid, 4);
  EXPECT_EQ(segs[2].first_zxid, 5);
  EXPECT_TRUE(same_records(recover().records, records));
}

TEST_F(TxnLogTest, RollStartsANewSegmentAtTheNextAppend) {
  auto writer = TxnLogWriter::open(env_, options_, LogTail{});
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->append(10, "a").ok());
  ASSERT_TRUE((*writer)->roll().ok());
  ASSERT_TRUE((*writer)->roll().ok());  // nothing open: no empty segment
  ASSERT_TRUE((*writer)->append(12, "b").ok());
  ASSERT_TRUE((*writer)->sync().ok());
  std::vector<SegmentName> segs = segments();
  ASSERT_EQ(segs.size(), 2u);
  EXPECT_EQ(segs[0].name, "log.000000000000000a");
  EXPECT_EQ(segs[1].name, "log.000000000000000c");
}

TEST_F(TxnLogTest, ZxidsMustIncrease) {
  auto writer = TxnLogWriter::open(env_, options_, LogTail{});
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->append(5, "a").ok());
  EXPECT_FALSE((*writer)->append(5, "b").ok());
  EXPECT_FALSE((*writer)->append(4, "b").ok());
  EXPECT_TRUE((*writer)->append(6, "b").ok());
}

TEST_F(TxnLogTest, WriterRefusesToOverwriteAnExistingSegment) {
  append_records(env_, options_, LogTail{}, make_records(1, 3));
  auto writer = TxnLogWriter::open(env_, options_, LogTail{});  // wrongly ignores the log
  ASSERT_TRUE(writer.ok());
  Status s = (*writer)->append(1, "x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("log.0000000000000001"), std::string::npos);
  EXPECT_EQ(recover().records.size(), 3u);
}

TEST_F(TxnLogTest, SyncsAreCountedAndForceSyncOffSkipsThem) {
  auto writer = TxnLogWriter::open(env_, options_, LogTail{});
  ASSERT_TRUE(writer.ok());
  for (int64_t z = 1; z <= 10; ++z) {
    ASSERT_TRUE((*writer)->append(z, "t").ok());
    if (z % 2 == 0) {
      ASSERT_TRUE((*writer)->sync().ok());
    }
  }
  EXPECT_EQ((*writer)->syncs(), 5u);

  MemoryEnv unsafe_env;
  LogOptions unsafe = options_;
  unsafe.force_sync = false;
  auto unsafe_writer = TxnLogWriter::open(unsafe_env, unsafe, LogTail{});
  ASSERT_TRUE(unsafe_writer.ok());
  for (int64_t z = 1; z <= 100; ++z) {  // several segments: roll does not sync either
    ASSERT_TRUE((*unsafe_writer)->append(z, std::string(50, 'u')).ok());
    ASSERT_TRUE((*unsafe_writer)->sync().ok());
  }
  EXPECT_EQ((*unsafe_writer)->syncs(), 0u);
  EXPECT_EQ(unsafe_env.file_syncs(), 0u);
}

TEST_F(TxnLogTest, WriterContinuesInTheLastSegmentAfterRecovery) {
  auto first = make_records(1, 5);
  append_records(env_, options_, LogTail{}, first);
  RecoveredLog log = recover();
  EXPECT_EQ(log.tail.segment, "log.0000000000000001");
  EXPECT_EQ(log.tail.last_zxid, 5);
  auto second = make_records(6, 9);
  append_records(env_, options_, log.tail, second);
  EXPECT_EQ(segments().size(), 1u);
  first.insert(first.end(), second.begin(), second.end());
  EXPECT_TRUE(same_records(recover().records, first));
}

TEST_F(TxnLogTest, CrashLosesExactlyTheUnsyncedRecords) {
  auto writer = TxnLogWriter::open(env_, options_, LogTail{});
  ASSERT_TRUE(writer.ok());
  for (int64_t z = 1; z <= 30; ++z) ASSERT_TRUE((*writer)->append(z, std::string(30, 's')).ok());
  ASSERT_TRUE((*writer)->sync().ok());
  for (int64_t z = 31; z <= 40; ++z) ASSERT_TRUE((*writer)->append(z, std::string(30, 'u')).ok());
  env_.drop_unsynced();
  RecoveredLog log = recover();
  EXPECT_EQ(zxids_of(log.records), zxids_of(make_records(1, 30)));
  EXPECT_EQ(log.repaired, "");
}

TEST_F(TxnLogTest, CrashKeepsANewSegmentOnlyOnceSynced) {
  // Records 1..20 span two segments; the second (created during the
  // unsynced appends) must survive the crash once sync() returned, which
  // needs its directory entry synced too.
  auto writer = TxnLogWriter::open(env_, options_, LogTail{});
  ASSERT_TRUE(writer.ok());
  for (int64_t z = 1; z <= 20; ++z) ASSERT_TRUE((*writer)->append(z, std::string(80, 'a')).ok());
  ASSERT_GE(segments().size(), 2u);
  ASSERT_TRUE((*writer)->sync().ok());
  ASSERT_TRUE((*writer)->roll().ok());
  ASSERT_TRUE((*writer)->append(21, "not synced").ok());
  env_.drop_unsynced();
  RecoveredLog log = recover();
  EXPECT_EQ(zxids_of(log.records), zxids_of(make_records(1, 20)));
  EXPECT_EQ(log.tail.last_zxid, 20);
}

TEST_F(TxnLogTest, RollMakesTheFinishedSegmentDurable) {
  // Only the newest segment may hold unsynced bytes: recovery treats damage
  // anywhere else as corruption, so rolling (explicit or on a full segment)
  // syncs the segment it leaves.
  auto writer = TxnLogWriter::open(env_, options_, LogTail{});
  ASSERT_TRUE(writer.ok());
  for (int64_t z = 1; z <= 25; ++z) {  // 10 records of 96 bytes fill a segment
    ASSERT_TRUE((*writer)->append(z, std::string(80, 'r')).ok());
  }
  ASSERT_TRUE((*writer)->roll().ok());
  ASSERT_TRUE((*writer)->append(26, "unsynced").ok());
  env_.drop_unsynced();
  RecoveredLog log = recover();
  EXPECT_EQ(zxids_of(log.records), zxids_of(make_records(1, 25)));
  EXPECT_EQ((*writer)->syncs(), 0u);  // roll's syncs are not counted as sync() calls
}

TEST_F(TxnLogTest, SegmentsCoveredByTheSnapshotAreNotRead) {
  auto writer = TxnLogWriter::open(env_, options_, LogTail{});
  ASSERT_TRUE(writer.ok());
  for (int64_t z = 1; z <= 30; ++z) {
    ASSERT_TRUE((*writer)->append(z, "t").ok());
    if (z % 10 == 0) {
      ASSERT_TRUE((*writer)->roll().ok());
    }
  }
  // log.1 holds 1..10, log.b 11..20, log.15 21..30. A snapshot at 10 makes
  // log.1 irrelevant, so damage there does not stop recovery.
  ASSERT_TRUE(env_.corrupt(options_.dir + "/" + segment_name(1), 30, 0xff).ok());
  RecoveredLog log = recover(10);
  EXPECT_EQ(zxids_of(log.records), zxids_of(make_records(11, 30)));
  EXPECT_FALSE(read_txn_log(env_, options_.dir, 9).ok());
}

}  // namespace
}  // namespace zkd::storage
