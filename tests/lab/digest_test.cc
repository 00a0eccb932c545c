// SPDX-License-Identifier: Apache-2.0
// The tree digest on a real 3-node zkd ensemble (docs/replication.md, "Tree
// digest"): followers compare their digest with the leader's and agree under
// writes and restarts; a follower made to compare a wrong digest (the
// digest.compare failpoint) logs the mismatch, counts it in mntr, drops its
// clients and refuses new ones, while the rest of the ensemble serves on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

constexpr auto kServeDeadline = 30s;

class DigestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EnsembleOptions options;
    options.zkd_binary = zkd_binary();
    options.temp_dir_prefix = "zk_digest";
    auto started = Ensemble::start(options);
    ASSERT_TRUE(started.ensemble) << started.error;
    ensemble_ = std::move(started.ensemble);
    auto leader = ensemble_->wait_for_leader(kServeDeadline);
    ASSERT_TRUE(leader);
    leader_ = *leader;
    for (int id : ensemble_->ids()) {
      if (id != leader_) followers_.push_back(id);
    }
  }
  void TearDown() override {
    if (HasFailure() && ensemble_) {
      ensemble_->keep_directory();
      std::cerr << ensemble_->logs();
    }
  }

  // Creates `count` znodes through the leader.
  void write(const std::string& prefix, int count) {
    ASSERT_EQ(create_acknowledged(ensemble_->node(leader_), prefix, count).size(),
              static_cast<size_t>(count));
  }

  // A figure of node `id`'s mntr; -1 when it is missing.
  long figure(int id, const std::string& key) {
    const auto mntr = ensemble_->mntr(id);
    auto it = mntr.find(key);
    return it == mntr.end() ? -1 : std::stol(it->second);
  }

  std::unique_ptr<Ensemble> ensemble_;
  int leader_ = 0;
  std::vector<int> followers_;
  int32_t xid_ = 0;
};

TEST_F(DigestTest, FollowersAgreeWithTheLeaderUnderWritesAndRestarts) {
  write("a", 200);
  // A restarted follower catches up (DIFF) and compares again.
  ASSERT_TRUE(ensemble_->kill(followers_[0]));
  write("b", 100);
  ASSERT_EQ(ensemble_->restart(followers_[0], kServeDeadline), "");
  write("c", 200);
  for (int id : followers_) {
    // A sync answered means the follower applied what the leader had, and
    // got every digest the leader sent before (one FIFO link).
    Session s = connect_session(ensemble_->node(id));
    ASSERT_EQ(call(s.connection, ++xid_, OpCode::kSync, path_body("/")).header.err, Error::kOk);
    EXPECT_GE(figure(id, "zk_digests_compared"), 1) << "follower " << id;
    EXPECT_EQ(figure(id, "zk_digest_mismatches_count"), 0) << "follower " << id;
  }
  EXPECT_EQ(figure(leader_, "zk_digest_mismatches_count"), 0);
}

TEST_F(DigestTest, AFollowerThatDivergedStopsServingAndSaysWhy) {
  const int diverged = followers_[0];
  ASSERT_TRUE(ensemble_->kill(diverged));
  ensemble_->node(diverged).set_environment({"ZKD_FAILPOINTS=digest.compare=error"});
  ASSERT_EQ(ensemble_->restart(diverged, kServeDeadline), "");
  Session watcher = connect_session(ensemble_->node(diverged));

  write("a", 100);  // the leader sends its digest after the 64th
  // The diverged follower drops its clients: this session's connection ends.
  EXPECT_TRUE(watcher.connection.closed_without_data(kServeDeadline));
  EXPECT_THAT(ensemble_->node(diverged).log(), HasSubstr("tree digest mismatch at zxid"));
  EXPECT_GE(figure(diverged, "zk_digest_mismatches_count"), 1);  // its 4lw still answer
  const ZkdProcess& node = ensemble_->node(diverged);
  EXPECT_FALSE(open_session(node.host(), node.port(), new_session_request(30000)))
      << "a diverged follower took a new session";
  EXPECT_THAT(node.log(), HasSubstr("its tree diverged from its leader's"));

  // The leader and the other follower serve on, and agree.
  write("b", 100);
  Session other = connect_session(ensemble_->node(followers_[1]));
  ASSERT_EQ(call(other.connection, ++xid_, OpCode::kSync, path_body("/")).header.err, Error::kOk);
  EXPECT_EQ(call(other.connection, ++xid_, OpCode::kExists, path_body("/b99")).header.err,
            Error::kOk);
  EXPECT_EQ(figure(followers_[1], "zk_digest_mismatches_count"), 0);
}

}  // namespace
}  // namespace zk::lab
