// SPDX-License-Identifier: Apache-2.0
// Damage that a crash cannot explain stops recovery with an error that names
// the file and offset and says what to do, and changes nothing on disk.
#include <gtest/gtest.h>

#include <map>

#include "tests/unit/zkd/storage/storage_test_util.h"
#include "zkd/storage/log_format.h"
#include "zkd/storage/memory_env.h"
#include "zkd/storage/txn_log.h"

namespace zkd::storage {
namespace {

using testing::make_records;
using testing::record_size;

constexpr size_t kTxnSize = 40;

class TxnLogCorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // log.1 holds 1..10, log.b holds 11..20.
    auto writer = TxnLogWriter::open(env_, options_, LogTail{});
    ASSERT_TRUE(writer.ok());
    for (const LogRecord& r : make_records(1, 20, kTxnSize)) {
      ASSERT_TRUE((*writer)->append(r.zxid, r.txn).ok());
      if (r.zxid == 10) {
        ASSERT_TRUE((*writer)->roll().ok());
      }
    }
    ASSERT_TRUE((*writer)->sync().ok());
  }

  std::map<std::string, std::string> disk() {
    std::map<std::string, std::string> files;
    for (const std::string& path : env_.files()) files[path] = *env_.read_file(path);
    return files;
  }

  static uint64_t offset_of(int record_index) {
    return testing::kSegmentHeaderSize + record_index * record_size(kTxnSize);
  }

  // Recovery fails naming `file` and `offset`; the disk is untouched.
  void expect_corruption(const std::string& file, uint64_t offset, const std::string& reason) {
    auto before = disk();
    auto log = read_txn_log(env_, options_.dir, 0);
    ASSERT_FALSE(log.ok());
    const std::string& message = log.status().message();
    EXPECT_NE(message.find("corrupt txn log: /data/log/" + file + " at offset " +
                           std::to_string(offset) + ": "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(reason), std::string::npos) << message;
    EXPECT_NE(message.find("restore"), std::string::npos) << message;
    EXPECT_EQ(disk(), before);
  }

  MemoryEnv env_;
  LogOptions options_{"/data/log", 4096, true};
};

TEST_F(TxnLogCorruptionTest, FlippedBitInAMiddleRecordOfTheLastSegment) {
  ASSERT_TRUE(env_.corrupt("/data/log/log.000000000000000b", offset_of(4) + 30, 0x10).ok());
  expect_corruption("log.000000000000000b", offset_of(4), "checksum mismatch");
  auto contents = read_segment_file(env_, "/data/log/log.000000000000000b");
  ASSERT_TRUE(contents.ok());
  EXPECT_EQ(contents->records.size(), 4u);
  EXPECT_NE(contents->status.message().find("at offset " + std::to_string(offset_of(4))),
            std::string::npos);
}

TEST_F(TxnLogCorruptionTest, FlippedBitInTheZxidOfAMiddleRecord) {
  ASSERT_TRUE(env_.corrupt("/data/log/log.000000000000000b", offset_of(2) + 8, 0x01).ok());
  expect_corruption("log.000000000000000b", offset_of(2), "checksum mismatch");
}

TEST_F(TxnLogCorruptionTest, FlippedBitInTheLengthOfAMiddleRecord) {
  ASSERT_TRUE(env_.corrupt("/data/log/log.000000000000000b", offset_of(3), 0x02).ok());
  expect_corruption("log.000000000000000b", offset_of(3), "checksum mismatch");
}

TEST_F(TxnLogCorruptionTest, DamageInAnEarlierSegmentIsNeverATornTail) {
  // Even the last record of log.1, followed only by zeros: log.b exists, so
  // log.1 was synced whole before it was started.
  ASSERT_TRUE(env_.corrupt("/data/log/log.0000000000000001", offset_of(9) + 20, 0x80).ok());
  expect_corruption("log.0000000000000001", offset_of(9), "checksum mismatch");
}

TEST_F(TxnLogCorruptionTest, EarlierSegmentCutShort) {
  ASSERT_TRUE(env_.truncate("/data/log/log.0000000000000001", offset_of(7) + 3).ok());
  expect_corruption("log.0000000000000001", offset_of(7), "cut short");
}

TEST_F(TxnLogCorruptionTest, ZeroedRecordFollowedByRecords) {
  auto data = *env_.read_file("/data/log/log.000000000000000b");
  std::fill_n(data.begin() + static_cast<ptrdiff_t>(offset_of(5)), record_size(kTxnSize), '\0');
  ASSERT_TRUE(env_.write_file("/data/log/log.000000000000000b", data).ok());
  expect_corruption("log.000000000000000b", offset_of(5), "zero length word");
}

TEST_F(TxnLogCorruptionTest, BadFileHeader) {
  ASSERT_TRUE(env_.corrupt("/data/log/log.000000000000000b", 2, 0x01).ok());
  expect_corruption("log.000000000000000b", 0, "bad file header");
}

TEST_F(TxnLogCorruptionTest, ZxidGoingBackwardsAcrossSegments) {
  // A well-formed segment whose records repeat zxids already in log.b.
  std::string segment;
  log_format::encode_file_header(segment);
  log_format::encode_record(segment, 21, "ok");
  log_format::encode_record(segment, 15, "older than the last one");
  ASSERT_TRUE(env_.write_file("/data/log/" + segment_name(21), segment).ok());
  expect_corruption(segment_name(21), 16 + record_size(2), "zxid 15 does not follow");
}

TEST_F(TxnLogCorruptionTest, RecordsOlderThanTheSegmentName) {
  std::string segment;
  log_format::encode_file_header(segment);
  log_format::encode_record(segment, 25, "named 30 but starts at 25");
  ASSERT_TRUE(env_.write_file("/data/log/" + segment_name(30), segment).ok());
  expect_corruption(segment_name(30), 16, "zxid 25 does not follow the segment name's 30");
}

}  // namespace
}  // namespace zkd::storage
