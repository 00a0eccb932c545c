// SPDX-License-Identifier: Apache-2.0
// Failpoints of a replica's hard state and synchronisation
// (docs/failpoints.md) in a real 3-node zkd ensemble: a follower armed at an
// epoch-file point crashes there when the leader is killed and a new epoch
// begins; one armed at a step of installing a SNAP crashes there when it
// rejoins behind its leader's log. Once the crashed follower is back
// (unarmed), the ensemble serves again with every write it acknowledged, on
// every node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "tests/lab/lab_test_util.h"
#include "tests/lab/raw_client.h"
#include "zklab/process/ensemble.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using zk::test::path_body;
using zk::wire::Error;
using zk::wire::OpCode;

constexpr auto kElectionDeadline = 30s;
constexpr auto kServeDeadline = 30s;
constexpr auto kExitDeadline = 30s;

class EnsembleFailpointTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    EnsembleOptions options;
    options.zkd_binary = zkd_binary();
    // Snapshots every 5..10 txns: a restarted leader's log starts after its
    // newest one, so a follower that missed the writes is sent a SNAP.
    options.extra_lines = {"snapCount=10"};
    options.temp_dir_prefix = "zk_failpoint_ensemble";
    auto started = Ensemble::start(options);
    ASSERT_TRUE(started.ensemble) << started.error;
    ensemble_ = std::move(started.ensemble);
  }
  void TearDown() override {
    if (HasFailure() && ensemble_) {
      ensemble_->keep_directory();
      for (int id : ensemble_->ids()) {
        std::cerr << "---- node " << id << " ----\n" << ensemble_->node(id).log_tail();
      }
    }
  }

  // Node `armed` exited by crashing at `point`.
  void expect_crashed_at(int armed, const std::string& point) {
    auto status = ensemble_->node(armed).wait_for_exit(kExitDeadline);
    ASSERT_TRUE(status) << "node " << armed << " did not reach " << point;
    EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL) << "wait status " << *status;
    EXPECT_THAT(ensemble_->node(armed).log(), HasSubstr("zkd: failpoint " + point + ": crash"));
  }

  // Every node has every path of `acknowledged` (after a sync).
  void expect_everywhere(const std::vector<std::string>& acknowledged) {
    for (int id : ensemble_->ids()) {
      Session s = connect_session(ensemble_->node(id));
      ASSERT_EQ(call(s.connection, ++xid_, OpCode::kSync, path_body("/")).header.err, Error::kOk);
      for (const std::string& path : acknowledged) {
        EXPECT_EQ(call(s.connection, ++xid_, OpCode::kExists, path_body(path)).header.err,
                  Error::kOk)
            << path << " was acknowledged, then lost on node " << id;
      }
    }
  }

  std::unique_ptr<Ensemble> ensemble_;
  int32_t xid_ = 0;
};

using EpochFailpointTest = EnsembleFailpointTest;
using SnapFailpointTest = EnsembleFailpointTest;

TEST_P(EpochFailpointTest, AFollowerCrashedThereRejoinsAndNothingAcknowledgedIsLost) {
  const std::string point = GetParam();
  auto leader = ensemble_->wait_for_leader(kElectionDeadline);
  ASSERT_TRUE(leader);
  int armed = 0;
  for (int id : ensemble_->ids()) {
    if (id != *leader && armed == 0) armed = id;
  }
  // Restarted armed, the follower joins the current epoch: nothing to write yet.
  ASSERT_TRUE(ensemble_->kill(armed));
  ensemble_->node(armed).set_environment({"ZKD_FAILPOINTS=" + point + "=crash"});
  ASSERT_EQ(ensemble_->restart(armed, kServeDeadline), "");

  const auto acknowledged = create_acknowledged(ensemble_->node(*leader), "epoch-", 20);
  // A new epoch: the armed follower writes its epoch files and crashes.
  ASSERT_TRUE(ensemble_->kill(*leader));
  expect_crashed_at(armed, point);
  if (HasFatalFailure()) return;

  ensemble_->node(armed).set_environment({});
  ASSERT_EQ(ensemble_->respawn(*leader), "");
  ASSERT_EQ(ensemble_->respawn(armed), "");
  ASSERT_EQ(ensemble_->wait_all_serving(kServeDeadline), "");
  expect_everywhere(acknowledged);
}

TEST_P(SnapFailpointTest, AFollowerCrashedThereRejoinsAndNothingAcknowledgedIsLost) {
  const std::string point = GetParam();
  auto leader = ensemble_->wait_for_leader(kElectionDeadline);
  ASSERT_TRUE(leader);
  std::vector<int> others;
  for (int id : ensemble_->ids()) {
    if (id != *leader) others.push_back(id);
  }
  const int armed = others[0], other = others[1];
  // The armed follower misses 40 writes (several snapshots on the others).
  ASSERT_TRUE(ensemble_->kill(armed));
  const auto acknowledged = create_acknowledged(ensemble_->node(*leader), "snap-", 40);
  // Restarted, the two others keep only the log after their newest
  // snapshot in memory: the armed follower's zxid is not in it.
  ASSERT_TRUE(ensemble_->kill(*leader));
  ASSERT_TRUE(ensemble_->kill(other));
  ASSERT_EQ(ensemble_->respawn(*leader), "");
  ASSERT_EQ(ensemble_->respawn(other), "");
  ASSERT_EQ(ensemble_->wait_all_serving(kServeDeadline), "");

  ensemble_->node(armed).set_environment({"ZKD_FAILPOINTS=" + point + "=crash"});
  ASSERT_EQ(ensemble_->respawn(armed), "");
  expect_crashed_at(armed, point);
  if (HasFatalFailure()) return;
  const std::string crashed_run = ensemble_->node(armed).log();

  ensemble_->node(armed).set_environment({});
  ASSERT_EQ(ensemble_->respawn(armed), "");
  ASSERT_EQ(ensemble_->wait_all_serving(kServeDeadline), "");
  // It was sent a SNAP: a sync.snap.* point is only hit then; for the others
  // one of its two runs says so.
  if (point.rfind("sync.snap.", 0) != 0) {
    EXPECT_THAT(crashed_run + ensemble_->node(armed).log(),
                HasSubstr("installed the leader's snapshot"));
  }
  expect_everywhere(acknowledged);
}

INSTANTIATE_TEST_SUITE_P(HardState, EpochFailpointTest,
                         ::testing::Values("epoch.before_write", "epoch.accepted_written",
                                           "epoch.current_written"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return failpoint_test_name(info.param);
                         });

INSTANTIATE_TEST_SUITE_P(Synchronisation, SnapFailpointTest,
                         ::testing::Values("sync.snap.log_cleared", "sync.snap.before_write",
                                           "sync.snap.installed", "sync.ack_newleader.before_send",
                                           "sync.ack_newleader.sent"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return failpoint_test_name(info.param);
                         });

}  // namespace
}  // namespace zk::lab
