#include "zkd/server/log_thread.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

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
    LogThread log(open_writer(env), [&](const LogBatch& b) { reports.add(b); });
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
    LogThread log(open_writer(env), [&](const LogBatch& b) { reports.add(b); });
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
class GatedLog final : public storage::TxnLogWriter {
 public:
  storage::Status append(int64_t, std::string_view) override { return {}; }
  storage::Status roll() override { return {}; }
  uint64_t syncs() const override { return 0; }
  storage::Status sync() override {
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
};

TEST(LogThread, TxnsQueuedDuringAnFsyncShareTheNextOne) {
  auto gated = std::make_unique<GatedLog>();
  GatedLog& log_file = *gated;
  Reports reports;
  LogThread log(std::move(gated), [&](const LogBatch& b) { reports.add(b); });
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

}  // namespace
}  // namespace zkd::server
