// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_files/apache_txn_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/zkd/apache_files/apache_test_util.h"

namespace zkd::apache {
namespace {

using ::testing::HasSubstr;

// A segment of three creates, then preallocated zeros.
std::string segment() {
  return test::log_header() + test::log_entry(test::create_txn(5, "/x", "1", 1)) +
         test::log_entry(test::create_txn(6, "/y", "2", 2)) +
         test::log_entry(test::create_txn(7, "/z", "3", 3)) + std::string(4096, '\0');
}

zkd::StatusOr<std::vector<int64_t>> zxids(std::string_view bytes, bool last,
                                          std::string* torn = nullptr) {
  std::vector<int64_t> seen;
  auto read = read_apache_log(bytes, "log.5", last, [&seen](const tree::Txn& txn) {
    seen.push_back(txn.header.zxid);
    return zkd::Status();
  });
  if (!read.ok()) return read.status();
  if (torn != nullptr) *torn = read->torn_tail;
  EXPECT_EQ(read->entries, seen.size());
  return seen;
}

TEST(ApacheTxnLogTest, ReadsEveryEntryUpToThePreallocatedZeros) {
  auto seen = zxids(segment(), true);
  ASSERT_TRUE(seen.ok()) << seen.status().message();
  EXPECT_EQ(*seen, (std::vector<int64_t>{5, 6, 7}));
}

TEST(ApacheTxnLogTest, ATrailingDigestIsIgnored) {
  // Apache 3.6+ appends a TxnDigest to each txn's bytes.
  std::string txn_bytes;
  zk::wire::Writer tw(txn_bytes);
  tree::write_txn(tw, test::create_txn(5, "/x", "1", 1));
  tw.int32(2);
  tw.int64(0x1234);
  std::string entry;
  zk::wire::Writer w(entry);
  w.int64(adler32(1, txn_bytes));
  w.int32(static_cast<int32_t>(txn_bytes.size()));
  entry += txn_bytes + "B";
  auto seen = zxids(test::log_header() + entry, true);
  ASSERT_TRUE(seen.ok()) << seen.status().message();
  EXPECT_EQ(*seen, (std::vector<int64_t>{5}));
}

TEST(ApacheTxnLogTest, DamageInTheMiddleNamesTheFileAndOffset) {
  std::string bytes = segment();
  const size_t second =
      test::log_header().size() + test::log_entry(test::create_txn(5, "/x", "1", 1)).size();
  bytes[second + 20] ^= 0x01;  // inside the second entry's txn
  auto seen = zxids(bytes, true);
  ASSERT_FALSE(seen.ok());
  EXPECT_EQ(seen.status().kind(), zkd::Status::Kind::kCorruption);
  EXPECT_THAT(seen.status().message(), HasSubstr("log.5: offset " + std::to_string(second) +
                                                 ": the entry's checksum does not match"));
}

TEST(ApacheTxnLogTest, ATornLastEntryIsLeftOutOnlyInTheLastSegment) {
  std::string bytes = segment();
  const size_t third =
      test::log_header().size() + 2 * test::log_entry(test::create_txn(5, "/x", "1", 1)).size();
  // A crash cut the third entry: its end is zeros.
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(third) + 16, bytes.end(), '\0');
  std::string torn;
  auto seen = zxids(bytes, true, &torn);
  ASSERT_TRUE(seen.ok()) << seen.status().message();
  EXPECT_EQ(*seen, (std::vector<int64_t>{5, 6}));
  EXPECT_THAT(torn, HasSubstr("a torn last entry at offset " + std::to_string(third)));
  auto earlier = zxids(bytes, false);
  ASSERT_FALSE(earlier.ok());
  EXPECT_THAT(earlier.status().message(), HasSubstr("log.5: offset " + std::to_string(third)));
}

TEST(ApacheTxnLogTest, ASnapshotIsNotTakenForALog) {
  auto seen = zxids(test::apache_snapshot_bytes(tree::DataTree(), tree::SessionTable()), true);
  ASSERT_FALSE(seen.ok());
  EXPECT_THAT(seen.status().message(), HasSubstr("log.5: offset 0: not an Apache ZooKeeper"));
}

}  // namespace
}  // namespace zkd::apache
