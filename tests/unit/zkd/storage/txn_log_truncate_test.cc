// SPDX-License-Identifier: Apache-2.0
// TxnLogWriter::truncate_after on a log of several segments, on the in-memory
// Env (with a power loss after the cut) and on real files.
#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "tests/unit/zkd/storage/storage_test_util.h"
#include "zkd/storage/memory_env.h"
#include "zkd/storage/txn_log.h"

namespace zkd::storage {
namespace {

using testing::make_records;
using testing::same_records;
using testing::zxids_of;

// 1024-byte segments of 40-byte txns (56-byte records): 18 records each, so
// records 1..60 lie in log.1 (1..18), log.19 (19..36), log.37 (37..54) and
// log.55 (55..60).
constexpr uint64_t kSegmentSize = 1024;
constexpr int64_t kLast = 60;

// New records after the cut carry other bytes than the ones they replace.
std::vector<LogRecord> new_records(int64_t first, int64_t last) {
  std::vector<LogRecord> records;
  for (int64_t z = first; z <= last; ++z) records.push_back({z, "new " + std::to_string(z)});
  return records;
}

std::vector<LogRecord> concat(std::vector<LogRecord> a, const std::vector<LogRecord>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class TxnLogTruncateTest : public ::testing::TestWithParam<bool> {
 protected:
  bool on_disk() const { return GetParam(); }

  void SetUp() override {
    if (on_disk()) {
      tmp_.emplace();
      env_ = &posix_env();
      options_.dir = tmp_->at("log");
    } else {
      env_ = &memory_;
      options_.dir = "/data/log";
    }
    options_.preallocate = kSegmentSize;
    auto writer = TxnLogWriter::open(*env_, options_, LogTail{});
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    writer_ = std::move(*writer);
    append(make_records(1, kLast));
    ASSERT_EQ(segment_zxids(), (std::vector<int64_t>{1, 19, 37, 55}));
  }

  void append(const std::vector<LogRecord>& records) {
    for (const LogRecord& r : records) {
      Status s = writer_->append(r.zxid, r.txn);
      ASSERT_TRUE(s.ok()) << s.message();
    }
    Status s = writer_->sync();
    ASSERT_TRUE(s.ok()) << s.message();
  }

  void truncate_after(int64_t zxid) {
    Status s = writer_->truncate_after(zxid);
    ASSERT_TRUE(s.ok()) << s.message();
  }

  std::vector<LogRecord> read_log() {
    auto log = read_txn_log(*env_, options_.dir, 0);
    EXPECT_TRUE(log.ok()) << log.status().message();
    if (!log.ok()) return {};
    EXPECT_EQ(log->repaired, "");
    return std::move(log->records);
  }

  std::vector<int64_t> segment_zxids() {
    auto segments = list_segments(*env_, options_.dir);
    EXPECT_TRUE(segments.ok());
    std::vector<int64_t> zxids;
    if (segments.ok()) {
      for (const SegmentName& s : *segments) zxids.push_back(s.first_zxid);
    }
    return zxids;
  }

  // The log reads back as `expected`, also after a power loss (MemoryEnv):
  // the cut was durable.
  void expect_log(const std::vector<LogRecord>& expected) {
    EXPECT_TRUE(same_records(read_log(), expected))
        << ::testing::PrintToString(zxids_of(read_log()));
    if (!on_disk()) {
      memory_.drop_unsynced();
      EXPECT_TRUE(same_records(read_log(), expected))
          << "after a power loss: " << ::testing::PrintToString(zxids_of(read_log()));
    }
  }

  MemoryEnv memory_;
  std::optional<testing::TempDir> tmp_;
  Env* env_ = nullptr;
  LogOptions options_;
  std::unique_ptr<TxnLogWriter> writer_;
};

TEST_P(TxnLogTruncateTest, CutInTheMiddleOfASegmentKeepsItsPreallocation) {
  truncate_after(30);
  EXPECT_EQ(segment_zxids(), (std::vector<int64_t>{1, 19}));
  auto data = env_->read_file(options_.dir + "/" + segment_name(19));
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->size(), kSegmentSize);
  expect_log(make_records(1, 30));

  // Appending goes on in the cut segment, after the cut.
  append(new_records(31, 40));
  EXPECT_EQ(segment_zxids(), (std::vector<int64_t>{1, 19}));
  expect_log(concat(make_records(1, 30), new_records(31, 40)));
}

TEST_P(TxnLogTruncateTest, CutAtASegmentBoundaryRemovesTheLaterSegments) {
  truncate_after(36);  // the last record of log.19
  EXPECT_EQ(segment_zxids(), (std::vector<int64_t>{1, 19}));
  expect_log(make_records(1, 36));

  append(new_records(37, 45));  // log.19 is full: a new log.37
  EXPECT_EQ(segment_zxids(), (std::vector<int64_t>{1, 19, 37}));
  expect_log(concat(make_records(1, 36), new_records(37, 45)));
}

TEST_P(TxnLogTruncateTest, CutJustBeforeASegmentKeepsItsFirstRecord) {
  truncate_after(37);
  EXPECT_EQ(segment_zxids(), (std::vector<int64_t>{1, 19, 37}));
  expect_log(make_records(1, 37));
  append(new_records(38, 39));
  expect_log(concat(make_records(1, 37), new_records(38, 39)));
}

TEST_P(TxnLogTruncateTest, CutBelowEveryRecordRemovesTheWholeLog) {
  truncate_after(0);
  EXPECT_TRUE(segment_zxids().empty());
  expect_log({});

  // Zxids at or below the cut are refused; the next one starts a new segment.
  append(new_records(5, 7));
  EXPECT_EQ(segment_zxids(), (std::vector<int64_t>{5}));
  expect_log(new_records(5, 7));
}

TEST_P(TxnLogTruncateTest, CutAfterEveryRecordChangesNothing) {
  truncate_after(kLast);
  expect_log(make_records(1, kLast));
  truncate_after(kLast + 100);
  EXPECT_EQ(segment_zxids(), (std::vector<int64_t>{1, 19, 37, 55}));
  expect_log(make_records(1, kLast));

  // The next zxid must be above the cut, even though no record is there.
  EXPECT_FALSE(writer_->append(kLast + 1, "below the cut").ok());
}

TEST_P(TxnLogTruncateTest, NextAppendMustBeAboveTheCut) {
  truncate_after(30);
  Status refused = writer_->append(30, "again");
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("not greater"), std::string::npos) << refused.message();
}

TEST_P(TxnLogTruncateTest, RecordsAppendedButNotSyncedAreCutToo) {
  for (int64_t z = kLast + 1; z <= kLast + 5; ++z) {
    ASSERT_TRUE(writer_->append(z, "unsynced").ok());
  }
  truncate_after(58);
  expect_log(make_records(1, 58));
}

TEST_P(TxnLogTruncateTest, WorksOnAWriterReopenedAfterRecovery) {
  writer_.reset();
  auto log = read_txn_log(*env_, options_.dir, 0);
  ASSERT_TRUE(log.ok()) << log.status().message();
  auto writer = TxnLogWriter::open(*env_, options_, log->tail);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  writer_ = std::move(*writer);
  truncate_after(20);
  EXPECT_EQ(segment_zxids(), (std::vector<int64_t>{1, 19}));
  expect_log(make_records(1, 20));
  append(new_records(21, 22));
  expect_log(concat(make_records(1, 20), new_records(21, 22)));
}

TEST_P(TxnLogTruncateTest, CutBetweenSparseZxidsKeepsTheLowerOnes) {
  // A fresh log whose zxids jump by 10.
  writer_.reset();
  options_.dir += "-sparse";
  auto writer = TxnLogWriter::open(*env_, options_, LogTail{});
  ASSERT_TRUE(writer.ok());
  writer_ = std::move(*writer);
  std::vector<LogRecord> records;
  for (int64_t z = 10; z <= 400; z += 10) records.push_back({z, testing::txn_bytes(z, 40)});
  append(records);
  truncate_after(255);
  records.resize(25);  // 10..250
  expect_log(records);
  append(new_records(256, 256));
  expect_log(concat(records, new_records(256, 256)));
}

INSTANTIATE_TEST_SUITE_P(Envs, TxnLogTruncateTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Posix" : "Memory";
                         });

TEST(TxnLogTruncate, CutThatIsNotDurableWouldShowAfterAPowerLoss) {
  // The check expect_log() relies on: without the truncation's syncs a
  // power loss brings the removed records back.
  MemoryEnv env;
  LogOptions options{"/data/log", kSegmentSize, true};
  testing::append_records(env, options, LogTail{}, make_records(1, 40));
  ASSERT_TRUE(env.remove_file("/data/log/" + segment_name(37)).ok());  // no sync_dir
  env.drop_unsynced();
  auto log = read_txn_log(env, "/data/log", 0);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->records.size(), 40u);
}

TEST(TxnLogTruncate, DamagedSegmentBeforeTheCutIsAnError) {
  MemoryEnv env;
  LogOptions options{"/data/log", kSegmentSize, true};
  auto writer = TxnLogWriter::open(env, options, LogTail{});
  ASSERT_TRUE(writer.ok());
  for (const LogRecord& r : make_records(1, 30)) ASSERT_TRUE((*writer)->append(r.zxid, r.txn).ok());
  ASSERT_TRUE((*writer)->sync().ok());
  // Corrupt record 25 (the 7th of log.19); cutting after 28 cannot see 26..28.
  const uint64_t offset = testing::kSegmentHeaderSize + 6 * testing::record_size(40) + 20;
  ASSERT_TRUE(env.corrupt("/data/log/" + segment_name(19), offset, 0x01).ok());
  Status s = (*writer)->truncate_after(28);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(segment_name(19)), std::string::npos) << s.message();
  EXPECT_FALSE((*writer)->append(31, "x").ok());  // the writer is broken
}

}  // namespace
}  // namespace zkd::storage
