// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/snapshot_service.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/common/request_bodies.h"
#include "tests/common/run_until.h"
#include "zkd/failpoint/failpoint.h"
#include "zkd/storage/memory_env.h"
#include "zkd/storage/snapshot_file.h"

namespace zkd::server {
namespace {

using zk::test::create_body;
using zk::wire::OpCode;

const StorageLayout kLayout{"data/version-2", "logs/version-2"};

// A SnapshotService on an io_context this test runs as the state thread,
// over an in-memory disk and a tree the test writes to between snapshots.
class SnapshotServiceTest : public ::testing::Test {
 protected:
  SnapshotServiceTest() : guard_(boost::asio::make_work_guard(io_)) {}
  ~SnapshotServiceTest() override { failpoint::disarm_all(); }

  SnapshotService& service(int32_t snap_count = 100000, uint64_t bytes_per_second = 0) {
    SnapshotOptions options;
    options.bytes_per_second = bytes_per_second;
    options.layout = kLayout;
    options.snap_count = snap_count;
    options.seed = 1;
    options.retain_count = 3;
    service_.emplace(
        io_, env_, db_, options, [this] { ++rolls_; },
        [this](int64_t zxid, const zkd::Status& status) {
          finished_.push_back({zxid, status});
        });
    service_->open();
    return *service_;
  }

  // Creates a session (the first time) and `nodes` more nodes.
  void write(int nodes) {
    if (db_.last_zxid() == 0) db_.apply(db_.prepare_create_session(kSession, 30000, ++zxid_, 1000));
    for (int i = 0; i < nodes; ++i) {
      std::string path = "/n" + std::to_string(next_node_++);
      db_.apply(db_.prepare(kSession, 1, OpCode::kCreate, create_body(path, "data:" + path),
                            ++zxid_, 2000));
    }
  }

  // Runs the state thread until `count` snapshots have finished (run_until.h).
  void run_until_finished(size_t count) {
    EXPECT_TRUE(zk::test::run_until(io_, [&] { return finished_.size() >= count; }));
    ASSERT_EQ(finished_.size(), count);
  }

  std::vector<std::string> temporary_files() const {
    std::vector<std::string> tmp;
    for (const auto& f : env_.files()) {
      if (f.ends_with(".tmp")) tmp.push_back(f);
    }
    return tmp;
  }

  struct Finished {
    int64_t zxid = 0;
    zkd::Status status;
  };
  static constexpr int64_t kSession = 0x100;

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  storage::MemoryEnv env_;
  tree::Database db_;
  int64_t zxid_ = 0;
  int next_node_ = 0;
  int rolls_ = 0;
  std::vector<Finished> finished_;
  std::optional<SnapshotService> service_;  // last: stopped before the rest goes
};

TEST_F(SnapshotServiceTest, ASnapshotIsWrittenInChunksAndReadsBackAsTheSameTree) {
  write(4500);  // more than two chunks of 2000 nodes
  auto& snapshots = service();
  snapshots.start_snapshot(db_.last_zxid());
  EXPECT_TRUE(snapshots.running());
  EXPECT_EQ(rolls_, 1);
  run_until_finished(1);
  ASSERT_TRUE(finished_[0].status.ok()) << finished_[0].status.message();
  EXPECT_EQ(finished_[0].zxid, db_.last_zxid());
  EXPECT_FALSE(snapshots.running());
  EXPECT_EQ(snapshots.times().count(), 1);
  EXPECT_EQ(snapshots.last_snapshot().zxid, db_.last_zxid());

  auto loaded = storage::read_latest_snapshot(env_, kLayout.snap_dir);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_TRUE(loaded->snapshot);
  EXPECT_EQ(loaded->snapshot->zxid, db_.last_zxid());
  tree::Database copy;
  ASSERT_TRUE(copy.load_snapshot(loaded->snapshot->payload).ok());
  EXPECT_EQ(copy.compute_digest(), db_.compute_digest());
  EXPECT_EQ(copy.counts().znodes, db_.counts().znodes);
  EXPECT_EQ(copy.sessions().size(), 1u);
  EXPECT_TRUE(temporary_files().empty());
}

TEST_F(SnapshotServiceTest, ACappedSnapshotWaitsBetweenChunksUntilItsBytesAreDue) {
  write(4500);  // three chunks
  constexpr uint64_t kCap = 10'000;
  auto& snapshots = service(100000, kCap);
  const int64_t started_ms = env_.clock().steady_ms();
  snapshots.start_snapshot(db_.last_zxid());
  int waits = 0;
  while (finished_.empty()) {
    // Runs until the snapshot waits for its time (or ends), then moves the
    // simulated clock to it.
    ASSERT_TRUE(zk::test::run_until(
        io_, [&] { return !finished_.empty() || env_.time().next_deadline().has_value(); }));
    if (finished_.empty()) {
      ASSERT_TRUE(env_.time().advance_to_next());
      ++waits;
    }
  }
  ASSERT_TRUE(finished_[0].status.ok()) << finished_[0].status.message();
  EXPECT_EQ(waits, 3);  // after each chunk
  auto loaded = storage::read_latest_snapshot(env_, kLayout.snap_dir);
  ASSERT_TRUE(loaded.ok() && loaded->snapshot);
  const int64_t due_ms = static_cast<int64_t>(loaded->snapshot->payload.size() * 1000 / kCap);
  EXPECT_GE(env_.clock().steady_ms() - started_ms, due_ms);
  tree::Database copy;
  ASSERT_TRUE(copy.load_snapshot(loaded->snapshot->payload).ok());
  EXPECT_EQ(copy.compute_digest(), db_.compute_digest());
}

TEST_F(SnapshotServiceTest, ACappedSnapshotStopsWaitingOnceTheNextOneIsDue) {
  write(4500);
  auto& snapshots = service(100, 10'000);
  snapshots.start_snapshot(db_.last_zxid());
  ASSERT_TRUE(zk::test::run_until(io_, [&] { return env_.time().next_deadline().has_value(); }));
  // snapCount 100: at most 100 more txns make the next snapshot due.
  write(100);
  for (int i = 0; i < 100; ++i) snapshots.logged(db_.last_zxid());
  ASSERT_TRUE(env_.time().advance_to_next());  // the wait already armed
  ASSERT_TRUE(zk::test::run_until(io_, [&] { return !finished_.empty(); }));
  ASSERT_TRUE(finished_[0].status.ok()) << finished_[0].status.message();
  EXPECT_FALSE(env_.time().next_deadline().has_value());
}

TEST_F(SnapshotServiceTest, AbandoningACappedSnapshotWhileItWaitsLeavesNoTimerOrFile) {
  write(4500);
  auto& snapshots = service(100000, 10'000);
  snapshots.start_snapshot(db_.last_zxid());
  ASSERT_TRUE(zk::test::run_until(io_, [&] { return env_.time().next_deadline().has_value(); }));
  snapshots.abandon();
  EXPECT_FALSE(snapshots.running());
  EXPECT_FALSE(env_.time().next_deadline().has_value());
  EXPECT_TRUE(temporary_files().empty());
  EXPECT_TRUE(finished_.empty());
}

TEST_F(SnapshotServiceTest, EverySnapshotPurgesAllButTheNewestThree) {
  auto& snapshots = service();
  std::vector<int64_t> zxids;
  for (int i = 0; i < 5; ++i) {
    write(10);
    zxids.push_back(db_.last_zxid());
    snapshots.start_snapshot(db_.last_zxid());
    run_until_finished(static_cast<size_t>(i) + 1);
    ASSERT_TRUE(finished_.back().status.ok()) << finished_.back().status.message();
  }
  auto names = storage::list_snapshots(env_, kLayout.snap_dir);
  ASSERT_TRUE(names.ok());
  ASSERT_EQ(names->size(), 3u);
  EXPECT_EQ((*names)[0].zxid, zxids[4]);
  EXPECT_EQ((*names)[1].zxid, zxids[3]);
  EXPECT_EQ((*names)[2].zxid, zxids[2]);
  EXPECT_EQ(snapshots.times().count(), 5);
}

TEST_F(SnapshotServiceTest, AFailedSnapshotLeavesNoTemporaryFileAndTheNextOneWorks) {
  write(10);
  auto& snapshots = service();
  ASSERT_EQ(failpoint::arm("snapshot.before_rename=error"), "");
  snapshots.start_snapshot(db_.last_zxid());
  run_until_finished(1);
  failpoint::disarm_all();
  EXPECT_FALSE(finished_[0].status.ok());
  EXPECT_FALSE(snapshots.running());
  EXPECT_EQ(snapshots.times().count(), 0);
  EXPECT_TRUE(temporary_files().empty());
  EXPECT_EQ(snapshots.last_snapshot().zxid, -1);

  write(10);
  snapshots.start_snapshot(db_.last_zxid());
  run_until_finished(2);
  EXPECT_TRUE(finished_[1].status.ok()) << finished_[1].status.message();
  EXPECT_EQ(snapshots.last_snapshot().zxid, db_.last_zxid());
}

TEST_F(SnapshotServiceTest, LoggedTxnsStartOneSnapshotWhenDueAndDeferTheNext) {
  write(10);
  auto& snapshots = service(/*snap_count=*/2);  // due after 1 or 2 txns
  snapshots.logged(db_.last_zxid());
  snapshots.logged(db_.last_zxid());
  EXPECT_TRUE(snapshots.running());
  snapshots.logged(db_.last_zxid());
  snapshots.logged(db_.last_zxid());  // due again, but one is running
  EXPECT_EQ(rolls_, 1);
  run_until_finished(1);
  EXPECT_TRUE(finished_[0].status.ok()) << finished_[0].status.message();
}

TEST_F(SnapshotServiceTest, StopAbandonsTheSnapshotInProgress) {
  write(4500);
  auto& snapshots = service();
  snapshots.start_snapshot(db_.last_zxid());
  io_.run_one_for(std::chrono::milliseconds(50));  // perhaps a chunk or two
  snapshots.stop();
  EXPECT_FALSE(snapshots.running());
  io_.poll();  // results still on their way are ignored
  EXPECT_TRUE(finished_.empty());
  EXPECT_TRUE(temporary_files().empty());
  auto names = storage::list_snapshots(env_, kLayout.snap_dir);
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(names->empty());
}

// A replica abandons the snapshot in progress before it truncates its log
// or installs its leader's snapshot: once abandon() returns, the snapshot
// thread no longer writes it, and nothing of it is left or comes later.
TEST_F(SnapshotServiceTest, AbandonReturnsOnceTheSnapshotThreadIsDoneWithIt) {
  write(20000);  // ten chunks
  auto& snapshots = service();
  for (int round = 0; round < 3; ++round) {
    snapshots.start_snapshot(db_.last_zxid());
    io_.run_one_for(std::chrono::milliseconds(5 * round));  // none, or a chunk in flight
    snapshots.abandon();
    EXPECT_FALSE(snapshots.running());
    EXPECT_TRUE(temporary_files().empty()) << "round " << round;
  }
  io_.run_for(std::chrono::milliseconds(200));  // results still on their way are ignored
  EXPECT_TRUE(finished_.empty());
  EXPECT_TRUE(temporary_files().empty());
  auto names = storage::list_snapshots(env_, kLayout.snap_dir);
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(names->empty());
}

}  // namespace
}  // namespace zkd::server
