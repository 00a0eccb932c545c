// SPDX-License-Identifier: Apache-2.0
// zkd's failpoints in a real process (ZKD_FAILPOINTS, zkd/failpoint/
// failpoint.h): armed to crash, zkd dies by SIGKILL at the named point after
// saying so; armed to fail an I/O, it stops as its exit status documents;
// either way a zkd started again on the same data has every write a client
// was told succeeded. The replication points are reached in the ensemble
// tests; these are the ones a standalone server reaches.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "tests/lab/lab_test_util.h"
#include "tests/lab/raw_client.h"
#include "toolkit/poll_until.h"
#include "zklab/process/zkd_process.h"

namespace zk::lab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using zk::wire::Error;
using zk::wire::OpCode;

constexpr auto kExitDeadline = std::chrono::seconds(30);

// Options for a zkd in `dir` with a snapshot every 10 to 20 txns, so that the
// snapshot points are reached.
ZkdOptions options_in(const fs::path& dir) {
  ZkdOptions options = zkd_options();
  options.dir = dir;
  options.extra_lines = {"snapCount=20", "preAllocSize=256"};
  return options;
}

class FailpointProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("zkd_failpoint");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override {
    if (HasFailure() && zkd_) std::cerr << "---- zkd log ----\n" << zkd_->log();
    zkd_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void start(const std::string& spec) {
    ZkdOptions options = options_in(dir_);
    if (!spec.empty()) options.environment = {"ZKD_FAILPOINTS=" + spec};
    auto started = ZkdProcess::start(options);
    ASSERT_TRUE(started.process) << started.error;
    zkd_ = std::move(started.process);
  }

  // Creates /n0, /n1, ... one at a time until a create fails (the process
  // stopped) or `limit` were made; the paths zkd acknowledged.
  std::vector<std::string> create_until_stopped(int limit) {
    std::vector<std::string> acknowledged;
    Session s = connect_session(*zkd_);
    for (int i = 0; i < limit; ++i) {
      const std::string path = "/n" + std::to_string(i);
      // No reply: the process stopped (the connection is closed).
      if (!s.connection.send_request(++xid_, OpCode::kCreate, zk::test::create_body(path, "v"))) {
        break;
      }
      auto frame = s.connection.read_frame();
      if (!frame) break;
      auto reply = parse_reply(*frame);
      EXPECT_TRUE(reply && reply->header.xid == xid_);
      if (!reply || reply->header.err != Error::kOk) break;
      acknowledged.push_back(path);
    }
    return acknowledged;
  }

  // The wait status of the run that stopped.
  int wait_stopped() {
    auto status = zkd_->wait_for_exit(kExitDeadline);
    EXPECT_TRUE(status.has_value()) << "zkd did not stop at its failpoint";
    return status.value_or(-1);
  }

  // Starts zkd again on the same data without failpoints and expects every
  // path in `acknowledged` to be there.
  void expect_restart_keeps(const std::vector<std::string>& acknowledged) {
    const std::string previous_log = zkd_->log();
    zkd_.reset();
    start("");
    ASSERT_TRUE(zkd_) << previous_log;
    Session s = connect_session(*zkd_);
    for (const std::string& path : acknowledged) {
      auto r = call(s.connection, ++xid_, OpCode::kExists, zk::test::path_body(path));
      EXPECT_EQ(r.header.err, Error::kOk) << path << " was acknowledged, then lost";
    }
  }

  fs::path dir_;
  std::unique_ptr<ZkdProcess> zkd_;
  int32_t xid_ = 0;
};

struct CrashCase {
  const char* spec;
  const char* point;
};

class FailpointCrashTest : public FailpointProcessTest,
                           public ::testing::WithParamInterface<CrashCase> {};

TEST_P(FailpointCrashTest, DiesByKillAtThePointAndLosesNoAcknowledgedWrite) {
  start(GetParam().spec);
  ASSERT_TRUE(zkd_);
  const auto acknowledged = create_until_stopped(200);
  EXPECT_LT(acknowledged.size(), 200u) << "zkd never reached " << GetParam().point;
  const int status = wait_stopped();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "wait status " << status;
  EXPECT_THAT(zkd_->log(),
              HasSubstr("zkd: failpoint " + std::string(GetParam().point) + ": crash"));
  expect_restart_keeps(acknowledged);
}

INSTANTIATE_TEST_SUITE_P(
    StandalonePoints, FailpointCrashTest,
    ::testing::Values(CrashCase{"log.before_write=crash@7", "log.before_write"},
                      CrashCase{"log.before_sync=crash@7", "log.before_sync"},
                      CrashCase{"log.synced=crash@7", "log.synced"},
                      CrashCase{"log.roll=crash", "log.roll"},
                      CrashCase{"snapshot.before_rename=crash@2", "snapshot.before_rename"},
                      CrashCase{"snapshot.renamed=crash@2", "snapshot.renamed"}),
    [](const ::testing::TestParamInfo<CrashCase>& info) {
      return failpoint_test_name(info.param.point);
    });

TEST_F(FailpointProcessTest, AnInjectedLogErrorStopsZkdWithStatusFourAndLosesNothing) {
  start("log.before_sync=error@7");
  ASSERT_TRUE(zkd_);
  const auto acknowledged = create_until_stopped(200);
  EXPECT_LT(acknowledged.size(), 200u);
  const int status = wait_stopped();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 4) << "wait status " << status;
  EXPECT_THAT(zkd_->log(), HasSubstr("failpoint log.before_sync: injected I/O error"));
  expect_restart_keeps(acknowledged);
}

TEST_F(FailpointProcessTest, AFailedSnapshotIsLoggedAndZkdServesOnWithoutIt) {
  // The first snapshot is the one zkd writes at start-up (failing, it would
  // stop the start with status 3); the second is taken while serving.
  start("snapshot.before_rename=error@2");
  ASSERT_TRUE(zkd_);
  const auto acknowledged = create_until_stopped(60);
  EXPECT_EQ(acknowledged.size(), 60u) << "a failed snapshot stopped zkd";
  EXPECT_TRUE(zkd_->running());
  // "snapshot 0x<zxid> failed: failpoint ...": that snapshot's temporary
  // file is gone (a later snapshot may be under way meanwhile: its .tmp may
  // be there). The snapshot runs in the background: its failure is logged
  // some time after the creates that started it were answered.
  std::smatch failed;
  std::string log;
  const std::regex failure(
      "snapshot 0x([0-9a-f]+) failed: failpoint snapshot.before_rename: injected I/O error");
  ASSERT_TRUE(zk::toolkit::poll_until(
      [&] {
        log = zkd_->log();
        return std::regex_search(log, failed, failure);
      },
      std::chrono::seconds(30), std::chrono::milliseconds(20)))
      << log;
  char name[64];
  std::snprintf(name, sizeof name, "snapshot.%016llx.tmp",
                std::stoull(failed[1].str(), nullptr, 16));
  EXPECT_FALSE(fs::exists(zkd_->data_dir() / "version-2" / name)) << name << " was left behind";
  ASSERT_TRUE(zkd_->kill());
  expect_restart_keeps(acknowledged);
}

TEST_F(FailpointProcessTest, ACrashBeforeTheSessionKeyIsWrittenLeavesAStartableDataDir) {
  ZkdOptions options = options_in(dir_);
  options.environment = {"ZKD_FAILPOINTS=session_key.before_write=crash"};
  options.wait_until_ready = false;
  auto started = ZkdProcess::start(options);
  ASSERT_TRUE(started.process) << started.error;
  zkd_ = std::move(started.process);
  const int status = wait_stopped();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "wait status " << status;
  EXPECT_FALSE(fs::exists(dir_ / "data" / "session.key"));
  expect_restart_keeps({});
  EXPECT_TRUE(fs::exists(dir_ / "data" / "session.key"));
}

TEST(FailpointCommandTest, ListsAtLeastTwelvePointsOnePerLine) {
  RunResult r = run_zkd({"failpoints"}, std::chrono::seconds(10));
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.output;
  std::istringstream lines(r.output);
  std::set<std::string> names;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string name, faults;
    fields >> name >> faults;
    EXPECT_TRUE(faults == "crash" || faults == "crash,error") << line;
    names.insert(name);
  }
  EXPECT_GE(names.size(), 12u) << r.output;
  EXPECT_TRUE(names.count("log.before_sync")) << r.output;
}

TEST(FailpointCommandTest, AnUnknownFailpointStopsZkdWithStatusTwo) {
  RunResult r = run_zkd("/usr/bin/env",
                        {"ZKD_FAILPOINTS=log.nope=crash", zkd_binary(), "--config", "/dev/null"},
                        std::chrono::seconds(10));
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("ZKD_FAILPOINTS: unknown failpoint 'log.nope'"));
}

}  // namespace
}  // namespace zk::lab
