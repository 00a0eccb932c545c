// SPDX-License-Identifier: Apache-2.0
// zkd.quorumSync (docs/replication.md, man zkd): with the key, a leader cut
// off from its followers answers no sync, so a sync and a read after it are
// linearizable; without it, the leader answers from its own log, as Apache's
// does, until it notices it lost its quorum: the window for a stale read that
// the key closes.
#include <signal.h>

#include <gtest/gtest.h>

#include "libzk/client/sync_client.h"
#include "tests/lab/lab_test_util.h"
#include "zklab/process/ensemble.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using zk::client::ClientOptions;
using zk::client::SyncClient;
using zk::wire::Error;

constexpr auto kServeDeadline = 30s;

class QuorumSyncTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    EnsembleOptions options;
    options.zkd_binary = zkd_binary();
    options.temp_dir_prefix = "zk_quorum_sync";
    // The leader notices a silent quorum only after 3 s: the window looked at.
    options.sync_limit = 15;
    options.extra_lines = {"zkd.peerTimeoutMs=3000",
                           std::string("zkd.quorumSync=") + (GetParam() ? "true" : "false")};
    auto started = Ensemble::start(options);
    ASSERT_TRUE(started.ensemble) << started.error;
    ensemble_ = std::move(started.ensemble);
    auto leader = ensemble_->wait_for_leader(kServeDeadline);
    ASSERT_TRUE(leader);
    leader_ = *leader;
  }
  void TearDown() override {
    if (!ensemble_) return;
    for (int id : paused_) ensemble_->node(id).signal(SIGCONT);
    if (HasFailure()) {
      ensemble_->keep_directory();
      std::cerr << ensemble_->logs();
    }
  }

  std::unique_ptr<SyncClient> connect(int id) {
    auto client = std::make_unique<SyncClient>(ClientOptions{});
    auto st = client->connect(ensemble_->address(id), 30s, kServeDeadline);
    EXPECT_TRUE(st.ok()) << "node " << id << ": " << zk::wire::error_name(st.error());
    return st.ok() ? std::move(client) : nullptr;
  }

  std::unique_ptr<Ensemble> ensemble_;
  int leader_ = 0;
  std::vector<int> paused_;
};

TEST_P(QuorumSyncTest, ALeaderCutOffFromItsQuorumAnswersASyncOnlyWithoutTheKey) {
  const bool quorum_sync = GetParam();
  auto on_leader = connect(leader_);
  ASSERT_TRUE(on_leader);
  for (int id : ensemble_->ids()) {
    if (id == leader_) continue;
    auto on_follower = connect(id);
    ASSERT_TRUE(on_follower);
    EXPECT_TRUE(on_follower->sync("/").ok()) << "a sync through follower " << id;
  }
  EXPECT_TRUE(on_leader->sync("/").ok()) << "a sync on the leader, its quorum there";

  // Both followers stop answering: the leader still believes it leads.
  for (int id : ensemble_->ids()) {
    if (id != leader_) paused_.push_back(id);
  }
  for (int id : paused_) ASSERT_TRUE(ensemble_->node(id).signal(SIGSTOP));
  const auto answered = on_leader->sync("/");
  if (quorum_sync) {
    // Never answered: the connection is lost when the leader steps down.
    EXPECT_FALSE(answered.ok()) << "a leader without its quorum answered a sync";
    EXPECT_EQ(answered.error(), Error::kConnectionLoss) << zk::wire::error_name(answered.error());
  } else {
    EXPECT_TRUE(answered.ok()) << zk::wire::error_name(answered.error());
  }
}

INSTANTIATE_TEST_SUITE_P(Key, QuorumSyncTest, ::testing::Bool(), [](const auto& info) {
  return info.param ? "QuorumSync" : "LeaderAlone";
});

}  // namespace
}  // namespace zk::lab
