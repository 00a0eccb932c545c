// SPDX-License-Identifier: Apache-2.0
// Failpoints of a replica's hard state (docs/failpoints.md) in a real 3-node
// zkd ensemble: a follower armed at an epoch-file point crashes there when
// the leader is killed and a new epoch begins; once the old leader and the
// crashed follower are back (unarmed), the ensemble serves again with every
// write it acknowledged, on every node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "tests/lab/lab_test_util.h"
#include "tests/lab/raw_client.h"
#include "zklab/ensemble.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using zk::test::create_body;
using zk::test::path_body;
using zk::wire::Error;
using zk::wire::OpCode;

constexpr auto kElectionDeadline = 30s;
constexpr auto kServeDeadline = 30s;
constexpr auto kExitDeadline = 30s;

class EpochFailpointTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    EnsembleOptions options;
    options.zkd_binary = zkd_binary();
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

  std::unique_ptr<Ensemble> ensemble_;
  int32_t xid_ = 0;
};

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

  std::vector<std::string> acknowledged;
  {
    Session s = connect_session(ensemble_->node(*leader));
    for (int i = 0; i < 20; ++i) {
      const std::string path = "/epoch-" + std::to_string(i);
      ASSERT_EQ(call(s.connection, ++xid_, OpCode::kCreate, create_body(path, "v")).header.err,
                Error::kOk);
      acknowledged.push_back(path);
    }
  }
  // A new epoch: the armed follower writes its epoch files and crashes.
  ASSERT_TRUE(ensemble_->kill(*leader));
  auto status = ensemble_->node(armed).wait_for_exit(kExitDeadline);
  ASSERT_TRUE(status) << "node " << armed << " did not reach " << point;
  EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL) << "wait status " << *status;
  EXPECT_THAT(ensemble_->node(armed).log(), HasSubstr("zkd: failpoint " + point + ": crash"));

  ensemble_->node(armed).set_environment({});
  ASSERT_EQ(ensemble_->respawn(*leader), "");
  ASSERT_EQ(ensemble_->respawn(armed), "");
  ASSERT_EQ(ensemble_->wait_all_serving(kServeDeadline), "");
  for (int id : ensemble_->ids()) {
    Session s = connect_session(ensemble_->node(id));
    ASSERT_EQ(call(s.connection, ++xid_, OpCode::kSync, path_body("/")).header.err, Error::kOk);
    for (const std::string& path : acknowledged) {
      EXPECT_EQ(call(s.connection, ++xid_, OpCode::kExists, path_body(path)).header.err, Error::kOk)
          << path << " was acknowledged, then lost on node " << id;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(HardState, EpochFailpointTest,
                         ::testing::Values("epoch.before_write", "epoch.accepted_written",
                                           "epoch.current_written"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return failpoint_test_name(info.param);
                         });

}  // namespace
}  // namespace zk::lab
