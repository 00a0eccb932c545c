// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/log_thread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "zkd/clock/real_time.h"
#include "zkd/storage/memory_env.h"

namespace zkd::server {
namespace {

using namespace std::chrono_literals;

struct Reports {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<LogBatch> batches;

  void add(const LogBatch& b) {
    std::lock_guard lock(mutex);
    batches.push_back(b);
    changed.notify_all();
  }
  // Waits (deadline) until some batch made `zxid` durable.
  bool wait_durable(int64_t zxid) {
    std::unique_lock lock(mutex);
    return changed.wait_for(
        lock, 10s, [&] { return !batches.empty() && batches.back().durable_zxid >= zxid; });
  }
  // Waits (deadline) until a batch reported after `truncations` truncations
  // made `zxid` durable.
  bool wait_durable_after_truncations(int64_t zxid, uint64_t truncations) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, 10s, [&] {
      return !batches.empty() && batches.back().truncations >= truncations &&
             batches.back().durable_zxid >= zxid;
    });
  }
  // Waits (deadline) until `n` batches have been reported.
  bool wait_batches(size_t n) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, 10s, [&] { return batches.size() >= n; });
  }
  std::vector<LogBatch> copy() {
    std::lock_guard lock(mutex);
    return batches;
  }
};

std::unique_ptr<storage::TxnLogWriter> open_writer(storage::Env& env) {
  storage::LogOptions options;
  options.dir = "log";
  options.preallocate = 4096;
  EXPECT_TRUE(env.create_dirs("log").ok());
  auto writer = storage::TxnLogWriter::open(env, options, storage::LogTail{});
  EXPECT_TRUE(writer.ok()) << writer.status().message();
  return std::move(*writer);
}

TEST(LogThread, EveryTxnBecomesDurableInOrderWithOneSyncPerBatch) {
  storage::MemoryEnv env;
  Reports reports;
  {
    LogThread log(open_writer(env), env.clock(), [&](const LogBatch& b) { reports.add(b); });
    for (int64_t zxid = 1; zxid <= 200; ++zxid) {
      log.append(zxid, "txn " + std::to_string(zxid));
      if (zxid == 100) log.roll();
    }
    ASSERT_TRUE(reports.wait_durable(200));
  }
  uint64_t txns = 0;
  int64_t last = 0;
  for (const auto& b : reports.batches) {
    EXPECT_TRUE(b.status.ok()) << b.status.message();
    EXPECT_GT(b.durable_zxid, last);
    last = b.durable_zxid;
    txns += b.txns;
  }
  EXPECT_EQ(txns, 200u);
  // One sync per batch: at most one fsync per txn, fewer when batches formed.
  EXPECT_LE(reports.batches.size(), 200u);

  // What was reported durable survives a power loss.
  env.drop_unsynced();
  auto log = storage::read_txn_log(env, "log", 0);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->records.size(), 200u);
  EXPECT_EQ(log->records[0].txn, "txn 1");
  EXPECT_EQ(log->records[199].zxid, 200);
  auto segments = storage::list_segments(env, "log");
  ASSERT_TRUE(segments.ok());
  ASSERT_GE(segments->size(), 2u);  // rolled at 100
  EXPECT_EQ(segments->back().first_zxid > 100, true);
}

TEST(LogThread, StopMakesQueuedTxnsDurableWithoutReporting) {
  storage::MemoryEnv env;
  Reports reports;
  {
    LogThread log(open_writer(env), env.clock(), [&](const LogBatch& b) { reports.add(b); });
    for (int64_t zxid = 1; zxid <= 50; ++zxid) log.append(zxid, "t");
    log.stop();
  }
  env.drop_unsynced();
  auto log = storage::read_txn_log(env, "log", 0);
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_EQ(log->records.size(), 50u);
}

// A log whose sync() blocks until the test lets it finish, so the test can
// queue txns while an fsync is running, deterministically.
// It also records the appends and truncations it is asked for, in order, and
// fails truncations when told to.
class GatedLog final : public storage::TxnLogWriter {
 public:
  zkd::Status append(int64_t zxid, std::string_view) override {
    std::lock_guard lock(mutex_);
    calls_.push_back("append " + std::to_string(zxid));
    return {};
  }
  zkd::Status roll() override { return {}; }
  uint64_t syncs() const override { return 0; }
  zkd::Status truncate_after(int64_t zxid) override {
    std::lock_guard lock(mutex_);
    calls_.push_back("truncate " + std::to_string(zxid));
    return truncate_error_.empty() ? zkd::Status() : zkd::Status::error(truncate_error_);
  }
  void fail_truncations(std::string why) {
    std::lock_guard lock(mutex_);
    truncate_error_ = std::move(why);
  }
  std::vector<std::string> calls() {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  zkd::Status sync() override {
    std::unique_lock lock(mutex_);
    ++in_sync_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return released_ >= in_sync_; });
    return {};
  }
  // Waits (deadline) until the n-th sync() has begun.
  bool wait_sync_started(int n) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 10s, [&] { return in_sync_ >= n; });
  }
  void release_all() {
    std::lock_guard lock(mutex_);
    released_ = 1 << 30;
    changed_.notify_all();
  }
  void release_one() {
    std::lock_guard lock(mutex_);
    ++released_;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int in_sync_ = 0;
  int released_ = 0;
  std::vector<std::string> calls_;
  std::string truncate_error_;
};

TEST(LogThread, TxnsQueuedDuringAnFsyncShareTheNextOne) {
  auto gated = std::make_unique<GatedLog>();
  GatedLog& log_file = *gated;
  Reports reports;
  LogThread log(std::move(gated), real_clock(), [&](const LogBatch& b) { reports.add(b); });
  log.append(1, "first");
  ASSERT_TRUE(log_file.wait_sync_started(1));
  for (int64_t zxid = 2; zxid <= 50; ++zxid) log.append(zxid, "queued");
  log_file.release_one();
  ASSERT_TRUE(log_file.wait_sync_started(2));
  log_file.release_all();
  ASSERT_TRUE(reports.wait_durable(50));
  log.stop();
  ASSERT_EQ(reports.batches.size(), 2u);
  EXPECT_EQ(reports.batches[0].txns, 1u);
  EXPECT_EQ(reports.batches[0].durable_zxid, 1);
  EXPECT_EQ(reports.batches[1].txns, 49u);  // one fsync for all of them
  EXPECT_EQ(reports.batches[1].durable_zxid, 50);
}

TEST(LogThread, TruncateAfterWaitsForEarlierTxnsAndCutsTheLog) {
  storage::MemoryEnv env;
  Reports reports;
  std::atomic<bool> appending_again{false};
  std::vector<LogBatch> before_new_appends;  // reported after the cut, before new appends
  LogThread log(open_writer(env), env.clock(), [&](const LogBatch& b) {
    if (b.truncations > 0 && !appending_again) before_new_appends.push_back(b);
    reports.add(b);
  });
  for (int64_t zxid = 1; zxid <= 100; ++zxid) log.append(zxid, "old " + std::to_string(zxid));
  zkd::Status s = log.truncate_after(50);  // returns once all 100 were written and cut
  ASSERT_TRUE(s.ok()) << s.message();

  auto check_log = [&](size_t size, int64_t last_old) {
    auto read = storage::read_txn_log(env, "log", 0);
    ASSERT_TRUE(read.ok()) << read.status().message();
    ASSERT_EQ(read->records.size(), size);
    for (size_t i = 0; i < size; ++i) {
      const int64_t zxid = static_cast<int64_t>(i) + 1;
      EXPECT_EQ(read->records[i].zxid, zxid);
      EXPECT_EQ(read->records[i].txn, (zxid <= last_old ? "old " : "new ") + std::to_string(zxid));
    }
  };
  check_log(50, 50);

  appending_again = true;
  for (int64_t zxid = 51; zxid <= 60; ++zxid) log.append(zxid, "new " + std::to_string(zxid));
  ASSERT_TRUE(reports.wait_durable_after_truncations(60, 1));
  log.stop();
  for (const LogBatch& b : before_new_appends) {
    EXPECT_LE(b.durable_zxid, 50) << "a report after the cut names a removed txn";
  }
  for (const LogBatch& b : reports.copy()) EXPECT_TRUE(b.status.ok()) << b.status.message();
  env.drop_unsynced();  // the cut was durable, and so is what was reported
  check_log(60, 50);
}

TEST(LogThread, TruncationRunsAfterEverythingQueuedBeforeIt) {
  auto gated = std::make_unique<GatedLog>();
  GatedLog& log_file = *gated;
  Reports reports;
  LogThread log(std::move(gated), real_clock(), [&](const LogBatch& b) { reports.add(b); });
  log.append(1, "first");
  ASSERT_TRUE(log_file.wait_sync_started(1));  // the first fsync hangs
  for (int64_t zxid = 2; zxid <= 20; ++zxid) log.append(zxid, "queued");
  // Released by another thread: this one (the state thread) blocks in truncate_after.
  std::thread releaser([&] { log_file.release_all(); });
  zkd::Status s = log.truncate_after(10);
  releaser.join();
  ASSERT_TRUE(s.ok()) << s.message();

  std::vector<std::string> expected;
  for (int zxid = 1; zxid <= 20; ++zxid) expected.push_back("append " + std::to_string(zxid));
  expected.push_back("truncate 10");
  EXPECT_EQ(log_file.calls(), expected);
  log.stop();
  // Whichever batches formed, none reported after the cut names a txn above it.
  for (const LogBatch& b : reports.copy()) {
    if (b.truncations > 0) {
      EXPECT_LE(b.durable_zxid, 10);
    }
  }
}

TEST(LogThread, FailedTruncationIsReturnedReportedOnceAndStopsTheLog) {
  auto gated = std::make_unique<GatedLog>();
  GatedLog& log_file = *gated;
  log_file.release_all();
  log_file.fail_truncations("truncate failed: disk on fire");
  Reports reports;
  LogThread log(std::move(gated), real_clock(), [&](const LogBatch& b) { reports.add(b); });
  log.append(1, "a");
  ASSERT_TRUE(reports.wait_durable(1));
  zkd::Status s = log.truncate_after(0);
  EXPECT_EQ(s.message(), "truncate failed: disk on fire");
  ASSERT_TRUE(reports.wait_batches(2));
  EXPECT_EQ(reports.copy()[1].status.message(), "truncate failed: disk on fire");

  // Nothing more reaches the log; later truncations get the same error.
  log.append(2, "b");
  zkd::Status again = log.truncate_after(1);
  EXPECT_EQ(again.message(), "truncate failed: disk on fire");
  log.stop();
  EXPECT_EQ(log_file.calls(), (std::vector<std::string>{"append 1", "truncate 0"}));
  EXPECT_EQ(reports.copy().size(), 2u);
}

TEST(LogThread, TruncateAfterStopIsAnError) {
  storage::MemoryEnv env;
  LogThread log(open_writer(env), env.clock(), [](const LogBatch&) {});
  log.append(1, "a");
  log.stop();
  zkd::Status s = log.truncate_after(0);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("stopped"), std::string::npos) << s.message();
  auto read = storage::read_txn_log(env, "log", 0);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->records.size(), 1u);  // untouched
}

}  // namespace
}  // namespace zkd::server
