// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the storage tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/common/temp_dir.h"
#include "zkd/storage/env.h"
#include "zkd/storage/txn_log.h"

namespace zkd::storage::testing {

// A fresh directory under /tmp, removed with its content at the end.
struct TempDir : zk::test::TempDir {
  TempDir() : zk::test::TempDir("zkd-storage") {}
};

// Reads a ReadableFile holding "0123456789" in pieces: at an offset, short
// at the end, nothing at its end.
inline void expect_digits_read_in_pieces(ReadableFile& file) {
  EXPECT_EQ(file.size(), 10u);
  char buf[8];
  auto got = file.read(3, 4, buf);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(std::string(buf, *got), "3456");
  got = file.read(7, 8, buf);  // short at the end
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(std::string(buf, *got), "789");
  got = file.read(10, 8, buf);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 0u);
}

// A txn of `size` bytes that depends on `zxid` and never ends in a zero byte
// (so cutting or zeroing any of its bytes changes the record).
inline std::string txn_bytes(int64_t zxid, size_t size) {
  std::string txn(size, '\0');
  for (size_t i = 0; i < size; ++i) txn[i] = static_cast<char>('a' + (zxid * 7 + i) % 26);
  return txn;
}

inline std::vector<LogRecord> make_records(int64_t first, int64_t last, size_t size = 40) {
  std::vector<LogRecord> records;
  for (int64_t z = first; z <= last; ++z) records.push_back({z, txn_bytes(z, size)});
  return records;
}

// Appends `records` through a writer opened at `tail`, then syncs.
inline void append_records(Env& env, const LogOptions& options, const LogTail& tail,
                           const std::vector<LogRecord>& records, bool sync = true) {
  auto writer = TxnLogWriter::open(env, options, tail);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  for (const LogRecord& r : records) {
    Status s = (*writer)->append(r.zxid, r.txn);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  if (sync) {
    Status s = (*writer)->sync();
    ASSERT_TRUE(s.ok()) << s.message();
  }
}

inline std::vector<int64_t> zxids_of(const std::vector<LogRecord>& records) {
  std::vector<int64_t> zxids;
  for (const LogRecord& r : records) zxids.push_back(r.zxid);
  return zxids;
}

inline bool same_records(const std::vector<LogRecord>& a, const std::vector<LogRecord>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].zxid != b[i].zxid || a[i].txn != b[i].txn) return false;
  }
  return true;
}

// Size on disk of one record holding `txn_size` bytes of txn.
inline uint64_t record_size(size_t txn_size) { return 16 + txn_size; }
inline constexpr uint64_t kSegmentHeaderSize = 16;

}  // namespace zkd::storage::testing
