// SPDX-License-Identifier: Apache-2.0
// A crash while the last record was being written: at every byte of it, the
// log must come back with exactly the records before it, say what it cut,
// and take new appends that read back whole.
#include <gtest/gtest.h>

#include "tests/unit/zkd/storage/storage_test_util.h"
#include "zkd/storage/memory_env.h"
#include "zkd/storage/txn_log.h"

namespace zkd::storage {
namespace {

using testing::append_records;
using testing::make_records;
using testing::record_size;
using testing::same_records;

constexpr size_t kTxnSize = 21;  // record length word 29: its low byte is not zero

enum class Damage { kTruncate, kZeroFrom };

struct LogUnderTest {
  MemoryEnv env;
  LogOptions options{"/data/log", 4096, true};
  std::vector<LogRecord> records = make_records(1, 30, kTxnSize);
  std::string last_segment;
  uint64_t last_record_offset = 0;

  LogUnderTest() {
    // Two segments: 1..20 and 21..30.
    auto writer = TxnLogWriter::open(env, options, LogTail{});
    EXPECT_TRUE(writer.ok());
    for (const LogRecord& r : records) {
      EXPECT_TRUE((*writer)->append(r.zxid, r.txn).ok());
      if (r.zxid == 20) {
        EXPECT_TRUE((*writer)->roll().ok());
      }
    }
    EXPECT_TRUE((*writer)->sync().ok());
    last_segment = options.dir + "/" + segment_name(21);
    last_record_offset = testing::kSegmentHeaderSize + 9 * record_size(kTxnSize);
  }

  void damage(Damage how, uint64_t at) {
    if (how == Damage::kTruncate) {
      ASSERT_TRUE(env.truncate(last_segment, at).ok());
    } else {
      auto data = env.read_file(last_segment);
      ASSERT_TRUE(data.ok());
      std::fill(data->begin() + static_cast<ptrdiff_t>(at), data->end(), '\0');
      ASSERT_TRUE(env.write_file(last_segment, *data).ok());
    }
  }
};

void expect_recovers_everything_before_the_last_record(Damage how) {
  const uint64_t size = record_size(kTxnSize);
  for (uint64_t cut = 0; cut < size; ++cut) {
    SCOPED_TRACE("cut " + std::to_string(cut) + " bytes into the last record");
    LogUnderTest log;
    const uint64_t at = log.last_record_offset + cut;
    // The message counts the bytes up to the last non-zero one it cut.
    const std::string original = log.env.read_file(log.last_segment)->substr(at - cut, cut);
    const uint64_t cut_bytes = original.find_last_not_of('\0') + 1;
    log.damage(how, at);

    auto recovered = read_txn_log(log.env, log.options.dir, 0);
    ASSERT_TRUE(recovered.ok()) << recovered.status().message();
    std::vector<LogRecord> expected(log.records.begin(), log.records.end() - 1);
    EXPECT_TRUE(same_records(recovered->records, expected));
    if (cut == 0) {
      EXPECT_EQ(recovered->repaired, "");  // the record is simply absent
    } else {
      EXPECT_EQ(recovered->repaired, "log.0000000000000015: cut torn record at offset " +
                                         std::to_string(log.last_record_offset) + " (" +
                                         std::to_string(cut_bytes) + " bytes)");
    }
    EXPECT_EQ(recovered->tail.segment, segment_name(21));
    EXPECT_EQ(recovered->tail.offset, log.last_record_offset);
    EXPECT_EQ(recovered->tail.last_zxid, 29);

    // The repair is durable and complete: a second recovery finds nothing.
    log.env.drop_unsynced();
    auto again = read_txn_log(log.env, log.options.dir, 0);
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(again->repaired, "");
    EXPECT_TRUE(same_records(again->records, expected));

    // Writing goes on after the last whole record, and everything reads back.
    auto more = make_records(30, 33, kTxnSize + 5);
    append_records(log.env, log.options, again->tail, more);
    expected.insert(expected.end(), more.begin(), more.end());
    auto after = read_txn_log(log.env, log.options.dir, 0);
    ASSERT_TRUE(after.ok()) << after.status().message();
    EXPECT_EQ(after->repaired, "");
    EXPECT_TRUE(same_records(after->records, expected));
  }
}

TEST(TxnLogTornTailTest, FileCutAtEveryByteOfTheLastRecord) {
  expect_recovers_everything_before_the_last_record(Damage::kTruncate);
}

TEST(TxnLogTornTailTest, ZerosFromEveryByteOfTheLastRecord) {
  expect_recovers_everything_before_the_last_record(Damage::kZeroFrom);
}

TEST(TxnLogTornTailTest, ChecksumMismatchInTheLastRecordFollowedByZerosIsATornTail) {
  // Indistinguishable from a record whose middle page never reached the
  // disk; it was not acknowledged unless synced (docs/storage-format.md).
  LogUnderTest log;
  ASSERT_TRUE(log.env.corrupt(log.last_segment, log.last_record_offset + 20, 0x04).ok());
  auto recovered = read_txn_log(log.env, log.options.dir, 0);
  ASSERT_TRUE(recovered.ok()) << recovered.status().message();
  EXPECT_EQ(recovered->records.size(), 29u);
  EXPECT_NE(recovered->repaired.find("cut torn record at offset " +
                                     std::to_string(log.last_record_offset)),
            std::string::npos);
}

TEST(TxnLogTornTailTest, TornFirstRecordOfANewSegmentRemovesTheSegment) {
  MemoryEnv env;
  LogOptions options{"/data/log", 4096, true};
  auto records = make_records(1, 5);
  append_records(env, options, LogTail{}, records);
  auto writer = TxnLogWriter::open(env, options, LogTail{"log.0000000000000001", 0, 5});
  ASSERT_FALSE(writer.ok());  // offset 0 is inside the header

  auto log = read_txn_log(env, options.dir, 0);
  ASSERT_TRUE(log.ok());
  auto w = TxnLogWriter::open(env, options, log->tail);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->roll().ok());
  ASSERT_TRUE((*w)->append(6, std::string(100, 'x')).ok());
  ASSERT_TRUE((*w)->sync().ok());
  const std::string path = options.dir + "/" + segment_name(6);
  ASSERT_TRUE(env.truncate(path, testing::kSegmentHeaderSize + 50).ok());

  auto recovered = read_txn_log(env, options.dir, 0);
  ASSERT_TRUE(recovered.ok()) << recovered.status().message();
  EXPECT_TRUE(same_records(recovered->records, records));
  EXPECT_NE(recovered->repaired.find("removed the segment"), std::string::npos);
  EXPECT_FALSE(env.file_exists(path));
  EXPECT_EQ(recovered->tail.segment, segment_name(1));
  EXPECT_EQ(recovered->tail.last_zxid, 5);

  append_records(env, options, recovered->tail, make_records(6, 8));
  auto after = read_txn_log(env, options.dir, 0);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(same_records(after->records, make_records(1, 8)));
}

TEST(TxnLogTornTailTest, SegmentCutInsideItsHeaderIsRemoved) {
  for (uint64_t size = 0; size < testing::kSegmentHeaderSize; ++size) {
    SCOPED_TRACE("header cut to " + std::to_string(size) + " bytes");
    MemoryEnv env;
    LogOptions options{"/data/log", 4096, true};
    append_records(env, options, LogTail{}, make_records(1, 5));
    auto w = TxnLogWriter::open(env, options, read_txn_log(env, options.dir, 0)->tail);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->roll().ok());
    ASSERT_TRUE((*w)->append(6, "x").ok());
    ASSERT_TRUE((*w)->sync().ok());
    ASSERT_TRUE(env.truncate(options.dir + "/" + segment_name(6), size).ok());
    auto recovered = read_txn_log(env, options.dir, 0);
    ASSERT_TRUE(recovered.ok()) << recovered.status().message();
    EXPECT_EQ(recovered->records.size(), 5u);
    EXPECT_NE(recovered->repaired.find("log.0000000000000006"), std::string::npos);
    EXPECT_EQ(recovered->tail.segment, segment_name(1));
  }
}

}  // namespace
}  // namespace zkd::storage
