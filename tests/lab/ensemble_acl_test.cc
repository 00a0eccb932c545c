// SPDX-License-Identifier: Apache-2.0
// ACLs in an ensemble (§10 of docs/wire-protocol.md), on a real 3-node ensemble
// (zklab/process/ensemble.h) driven by zk::client: a write that a follower forwards
// is checked on the leader against the ids of the caller's connection on the
// follower (Apache forwards a request's authInfo with it), so
//   * `auth` ACL entries expand to the caller's digest id, not to nothing;
//   * the owner's writes through a follower pass and a stranger's fail;
//   * a super digest authenticated on a follower is super on the leader.
//
// Flavour: zkd by default; ZK_ENSEMBLE_FLAVOUR=apache runs the same test
// against Apache ZooKeeper 3.8 (the reference behaviour). Every wait has a
// deadline.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>

#include "libzk/client/sync_client.h"
#include "tests/lab/lab_test_util.h"
#include "tests/lab/node_session.h"
#include "zklab/process/ensemble.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using zk::client::Error;
using zk::client::SyncClient;
using zk::wire::CreateMode;

constexpr auto kElectionDeadline = 30s;
constexpr const char* kSuperDigest = "super:lK75jTNcA+U9vtVEw5vB51mj/w4=";  // super:secret
const zk::wire::Id kAlice{"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="};  // alice:pw

std::string error_text(Error e) { return std::string(zk::wire::error_name(e)); }

class EnsembleAclTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EnsembleOptions options = flavoured_ensemble_options();
    options.voters = 3;
    options.extra_lines = {std::string("DigestAuthenticationProvider.superDigest=") + kSuperDigest};
    options.temp_dir_prefix = "zk_ensemble_acl_test";
    auto started = Ensemble::start(options);
    ASSERT_TRUE(started.ensemble) << started.error;
    ensemble_ = std::move(started.ensemble);
    auto leader = ensemble_->wait_for_leader(kElectionDeadline);
    ASSERT_TRUE(leader) << "no unique leader";
    leader_ = *leader;
    follower_ = leader_ == 1 ? 2 : 1;
  }

  void TearDown() override { keep_if_failed(ensemble_.get(), HasFailure()); }

  // A session on node `id` alone, authenticated with digest `user_password`
  // unless that is empty.
  std::unique_ptr<SyncClient> connect(int id, const std::string& user_password = "") {
    return connect_node(*ensemble_, id, user_password);
  }

  std::unique_ptr<Ensemble> ensemble_;
  int leader_ = 0;
  int follower_ = 0;
};

TEST_F(EnsembleAclTest, AForwardedWriteIsCheckedWithTheCallersIds) {
  auto alice = connect(follower_, "alice:pw");
  auto stranger = connect(follower_);
  auto root = connect(follower_, "super:secret");
  ASSERT_TRUE(alice && stranger && root);

  // `auth` expands to alice's digest id on the leader: it saw her ids.
  const zk::wire::ACLs creator_all{{zk::wire::perms::kAll, {"auth", ""}}};
  auto created = alice->create("/alice", std::string("v1"), CreateMode::kPersistent, creator_all);
  ASSERT_TRUE(created.ok()) << "create through follower " << follower_ << ": "
                            << error_text(created.error());
  auto acl = alice->get_acl("/alice");
  ASSERT_TRUE(acl.ok()) << error_text(acl.error());
  EXPECT_EQ(acl->acl, (zk::wire::ACLs{{zk::wire::perms::kAll, kAlice}}));

  // The owner may write through the follower; a stranger may not.
  EXPECT_TRUE(alice->set_data("/alice", std::string("v2")).ok());
  EXPECT_EQ(stranger->set_data("/alice", std::string("x")).error(), Error::kNoAuth);
  EXPECT_EQ(stranger->create("/alice/child", std::string()).error(), Error::kNoAuth);
  // ... and nobody without a digest id may use `auth`.
  EXPECT_EQ(
      stranger->create("/stranger", std::string(), CreateMode::kPersistent, creator_all).error(),
      Error::kInvalidACL);

  // Super, authenticated on the follower, is super on the leader.
  EXPECT_TRUE(root->set_data("/alice", std::string("v3")).ok());

  // Every node agrees (a read on the leader after a sync).
  auto on_leader = connect(leader_, "alice:pw");
  ASSERT_TRUE(on_leader);
  ASSERT_TRUE(on_leader->sync("/alice").ok());
  auto data = on_leader->get_data("/alice");
  ASSERT_TRUE(data.ok()) << error_text(data.error());
  EXPECT_EQ(data->data, std::optional<std::string>("v3"));
  auto stranger_on_leader = connect(leader_);
  ASSERT_TRUE(stranger_on_leader);
  EXPECT_EQ(stranger_on_leader->get_data("/alice").error(), Error::kNoAuth);
}

}  // namespace
}  // namespace zk::lab
