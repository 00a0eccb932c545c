// SPDX-License-Identifier: Apache-2.0
// The write path and the sessions, driven without a socket: an io_context
// this test runs as the state thread, the real log thread on the in-memory
// disk, and a request handler that records what the write path hands back.
#include "zkd/server/write_path.h"
#include "zkd/server/log_thread.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/common/request_bodies.h"
#include "tests/common/run_until.h"
#include "zkd/server/recovery.h"
#include "zkd/server/sessions.h"
#include "zkd/storage/memory_env.h"

namespace zkd::server {
namespace {

using zk::test::create_body;
using zk::test::path_body;
using zk::wire::OpCode;

const StorageLayout kLayout{"data/version-2", "logs/version-2"};

// Records the handshakes the write path finishes; no request is ever
// deferred here, since no client connection exists.
class RecordingHandler final : public RequestHandler {
 public:
  void handle(ClientState& /*client*/, std::string_view /*payload*/, Arrival /*arrival*/,
              int64_t /*started_ms*/) override {
    ADD_FAILURE() << "no client connection, so no request to hand back";
  }
  void session_created(ClientState* client, const PendingWrite& write) override {
    EXPECT_EQ(client, nullptr);
    created.push_back(write.txn.header.session_id);
  }
  std::vector<int64_t> created;
};

// Whether `path` is in `db`'s tree, as an exists request finds it.
bool exists(tree::Database& db, const std::string& path) {
  const tree::Response response = db.read(1, OpCode::kExists, path_body(path), tree::AuthIds{});
  return response.err == zk::wire::Error::kOk;
}

class WritePathTest : public ::testing::Test {
 protected:
  // requestThrottleLimit below globalOutstandingLimit: the lower counts.
  static constexpr WritePath::Limits kLimits{.outstanding = 3, .request_throttle = 2};

  WritePathTest()
      : guard_(boost::asio::make_work_guard(io_)),
        clients_(stats_, env_.clock()),
        snapshots_(io_, env_, db_, snapshot_options(), [this] { writes_.log().roll(); }),
        writes_(db_, clients_, snapshots_, stats_, handler_, kLimits, env_.clock(), audit_) {
    EXPECT_TRUE(env_.create_dirs(kLayout.log_dir).ok());
    EXPECT_TRUE(env_.create_dirs(kLayout.snap_dir).ok());
    storage::LogOptions options;
    options.dir = kLayout.log_dir;
    options.preallocate = 4096;
    auto writer = storage::TxnLogWriter::open(env_, options, storage::LogTail{});
    EXPECT_TRUE(writer.ok()) << writer.status().message();
    writes_.open(std::make_unique<LogThread>(std::move(*writer), env_.clock(),
                                             [this](const LogBatch& batch) {
                                               boost::asio::post(io_, [this, batch] {
                                                 EXPECT_TRUE(writes_.logged(batch).ok());
                                               });
                                             }),
                 0);
    snapshots_.open();
  }
  ~WritePathTest() override {
    if (sessions_) sessions_->stop();
    writes_.stop();
  }

  static SnapshotOptions snapshot_options() {
    SnapshotOptions options;
    options.layout = kLayout;
    options.snap_count = 100000;
    options.seed = 1;
    return options;
  }

  // A write of the server's own, which no connection waits for, or one of
  // `connection`'s.
  void submit(WriteRequest request, PendingWrite::Kind kind = PendingWrite::Kind::kExpiry,
              net::ConnectionId connection = Pipeline::kNoConnection) {
    PendingWrite write;
    write.kind = kind;
    write.op = request.op;
    writes_.submit(connection, std::move(write), request);
  }
  void create_session(int64_t session, int32_t timeout_ms) {
    WriteRequest request;
    request.kind = WriteRequest::Kind::kCreateSession;
    request.op = OpCode::kCreateSession;
    request.session = session;
    request.timeout_ms = timeout_ms;
    submit(request, PendingWrite::Kind::kCreateSession);
  }
  void create_ephemeral(int64_t session, const std::string& path,
                        net::ConnectionId connection = Pipeline::kNoConnection) {
    WriteRequest request;
    request.session = session;
    request.xid = 1;
    request.op = OpCode::kCreate;
    request.body = create_body(path, "owned", /*flags=*/1);
    submit(request, PendingWrite::Kind::kExpiry, connection);
  }

  // Runs the state thread until `done` holds (run_until.h); whether it did.
  // Each look at `done` moves the simulated time (the sessions' ticks) 5 ms.
  bool run_until(const std::function<bool()>& done) {
    return zk::test::run_until(io_, [&] {
      env_.time().advance(std::chrono::milliseconds(5));
      return done();
    });
  }

  // The tree a restart would recover from what is on the disk now.
  tree::Database recovered() {
    tree::Database db;
    auto result = recover(env_, kLayout, db, nullptr);
    EXPECT_TRUE(result.ok()) << result.status().message();
    return db;
  }

  Sessions& sessions(const ServerConfig& config, std::function<bool()> decides) {
    sessions_.emplace(io_, env_, sessions_options(config), db_, clients_, writes_,
                      std::move(decides));
    return *sessions_;
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  storage::MemoryEnv env_;
  tree::Database db_;
  ServerStats stats_;
  ClientRegistry clients_;
  RecordingHandler handler_;
  SnapshotService snapshots_;
  AuditTrail audit_;
  WritePath writes_;
  std::optional<Sessions> sessions_;
};

TEST_F(WritePathTest, AWriteIsAppliedOnlyOnceTheLogHasItOnDisk) {
  create_session(0x100, 30000);
  // Handed to the log, not yet applied: nothing is visible before it is durable.
  EXPECT_FALSE(db_.session_exists(0x100));
  EXPECT_EQ(writes_.pending(), 1u);
  EXPECT_TRUE(handler_.created.empty());

  ASSERT_TRUE(run_until([&] { return !handler_.created.empty(); }));
  EXPECT_EQ(handler_.created, std::vector<int64_t>{0x100});
  EXPECT_TRUE(db_.session_exists(0x100));
  EXPECT_EQ(writes_.pending(), 0u);
  EXPECT_EQ(db_.last_zxid(), 1);
  EXPECT_TRUE(recovered().session_exists(0x100));
  EXPECT_GE(stats_.metrics.fsynctime.count(), 1);
  // Apache's write-path figures moved with the txn.
  EXPECT_EQ(stats_.metrics.prep_processor_request_queued, 1u);
  EXPECT_EQ(stats_.metrics.sync_processor_request_queued, 1u);
  EXPECT_EQ(stats_.metrics.sync_processor_queue_and_flush_time_ms.count(), 1);
  EXPECT_EQ(stats_.metrics.outstanding_changes_removed, 1u);
  EXPECT_EQ(stats_.metrics.commit_process_time.count(), 1);
}

TEST_F(WritePathTest, BusyClientsAreNotReadWhileTheThrottleLimitIsReachedIdleOnesAre) {
  constexpr net::ConnectionId kBusy = 7;
  constexpr net::ConnectionId kIdle = 8;
  create_session(0x100, 30000);
  EXPECT_TRUE(writes_.read_gate()->open(kBusy));
  create_ephemeral(0x100, "/a", kBusy);
  EXPECT_EQ(writes_.in_process(), 2u);
  EXPECT_FALSE(writes_.read_gate()->open(kBusy))
      << "requestThrottleLimit is " << kLimits.request_throttle;
  EXPECT_TRUE(writes_.read_gate()->open(kIdle)) << "a client with nothing in process is read";

  ASSERT_TRUE(run_until([&] { return writes_.pending() == 0; }));
  EXPECT_TRUE(writes_.read_gate()->open(kBusy));
  EXPECT_TRUE(exists(db_, "/a"));
}

TEST_F(WritePathTest, AHeldGateStopsEveryClient) {
  writes_.hold(true);
  EXPECT_FALSE(writes_.read_gate()->open(8)) << "an online restore waits for every client";
  writes_.hold(false);
  EXPECT_TRUE(writes_.read_gate()->open(8));
}

TEST_F(WritePathTest, AnExpiredSessionIsClosedThroughTheLogAndItsEphemeralsGo) {
  ServerConfig config;
  config.tick_time_ms = 10;
  auto& tracked = sessions(config, [] { return true; });
  create_session(0x100, 40);
  create_ephemeral(0x100, "/lock");
  ASSERT_TRUE(run_until([&] { return exists(db_, "/lock"); }));
  tracked.track(0x100, 40, 0);  // its deadline long past
  tracked.start();

  ASSERT_TRUE(run_until([&] { return !db_.session_exists(0x100); }));
  EXPECT_FALSE(exists(db_, "/lock"));
  EXPECT_FALSE(tracked.tracker().contains(0x100));
  // The closeSession took the way of every write: a restart does not bring
  // the session or its ephemeral back.
  tree::Database after_restart = recovered();
  EXPECT_FALSE(after_restart.session_exists(0x100));
  EXPECT_FALSE(exists(after_restart, "/lock"));
}

TEST_F(WritePathTest, ASessionIsNotExpiredByAServerThatDoesNotDecide) {
  ServerConfig config;
  config.tick_time_ms = 10;
  int asked = 0;
  auto& tracked = sessions(config, [&] { return ++asked, false; });
  create_session(0x100, 40);
  ASSERT_TRUE(run_until([&] { return db_.session_exists(0x100); }));
  tracked.track(0x100, 40, 0);
  tracked.start();

  // Several expiry ticks come and go; the session stays.
  ASSERT_TRUE(run_until([&] { return asked >= 3; }));
  EXPECT_TRUE(db_.session_exists(0x100));
  EXPECT_TRUE(tracked.tracker().contains(0x100));
}

TEST_F(WritePathTest, NewSessionIdsAvoidTheSessionsAlreadyInTheTree) {
  ServerConfig config;
  auto& tracked = sessions(config, [] { return true; });
  const int64_t first = tracked.new_id();
  create_session(first + 1, 30000);  // the generator's next id, taken meanwhile
  ASSERT_TRUE(run_until([&] { return db_.session_exists(first + 1); }));
  const int64_t next = tracked.new_id();
  EXPECT_NE(next, first);
  EXPECT_NE(next, first + 1);
  EXPECT_FALSE(db_.session_exists(next));
}

}  // namespace
}  // namespace zkd::server
