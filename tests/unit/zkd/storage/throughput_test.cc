// SPDX-License-Identifier: Apache-2.0
// Throughput sanity on the real file system: prints numbers, asserts only
// that everything written reads back (no timing assertions).
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "tests/unit/zkd/storage/storage_test_util.h"
#include "zkd/storage/crc32c.h"
#include "zkd/storage/txn_log.h"

namespace zkd::storage {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(ThroughputTest, Crc32c) {
  std::string data(16 << 20, 'z');
  auto start = std::chrono::steady_clock::now();
  uint32_t crc = crc32c::value(data);
  double t = seconds_since(start);
  std::cout << "crc32c (" << (crc32c::hardware_available() ? "sse4.2" : "portable")
            << "): " << 16 / t << " MiB/s\n";
  start = std::chrono::steady_clock::now();
  EXPECT_EQ(crc32c::extend_portable(0, data.data(), data.size()), crc);
  std::cout << "crc32c (portable): " << 16 / seconds_since(start) << " MiB/s\n";
}

TEST(ThroughputTest, TxnLogAppendSyncEvery100) {
  testing::TempDir tmp;
  LogOptions options{tmp.at("log"), 4 << 20, true};
  auto writer = TxnLogWriter::open(posix_env(), options, LogTail{});
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  const std::string txn(200, 't');
  const int64_t n = 20000;
  auto start = std::chrono::steady_clock::now();
  for (int64_t z = 1; z <= n; ++z) {
    ASSERT_TRUE((*writer)->append(z, txn).ok());
    if (z % 100 == 0) {
      ASSERT_TRUE((*writer)->sync().ok());
    }
  }
  double t = seconds_since(start);
  std::cout << "txn log: " << n / t << " appends/s of " << txn.size() << " bytes, "
            << (*writer)->syncs() / t << " fdatasync/s\n";

  start = std::chrono::steady_clock::now();
  auto log = read_txn_log(posix_env(), options.dir, 0);
  ASSERT_TRUE(log.ok()) << log.status().message();
  std::cout << "recovery: " << n / seconds_since(start) << " records/s\n";
  EXPECT_EQ(log->records.size(), static_cast<size_t>(n));
  EXPECT_EQ(log->tail.last_zxid, n);
}

}  // namespace
}  // namespace zkd::storage
