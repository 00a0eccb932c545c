// SPDX-License-Identifier: Apache-2.0
// Dynamic reconfiguration on a real 3-node ensemble (zklab/process/ensemble.h) with
// reconfigEnabled=true, driven by zk::client's reconfig as an operator's
// client would:
//   * a server started with the membership plus itself is added, serves,
//     takes over a session opened before, and every node's
//     /zookeeper/config says the new membership, with the version (the
//     txn's zxid) in its data and as its mzxid;
//   * the leader removed hands leadership to a remaining voter; the rest
//     keep serving, and restarted they keep the membership;
//   * the refusals: no superuser, bad input, a version that is not the
//     current one, and a new membership no majority of which is in sync.
//
// Flavour: zkd by default; ZK_ENSEMBLE_FLAVOUR=apache runs the same test
// against Apache ZooKeeper 3.8 (the reference behaviour). Every wait has a
// deadline.
#include <gtest/gtest.h>

#include <charconv>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "libzk/client/sync_client.h"
#include "tests/lab/lab_test_util.h"
#include "tests/lab/node_session.h"
#include "zklab/process/ensemble.h"
#include "zklab/process/four_letter_word.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using zk::client::Error;
using zk::client::SyncClient;

constexpr auto kDeadline = 30s;
constexpr const char* kSuperDigest = "super:lK75jTNcA+U9vtVEw5vB51mj/w4=";  // super:secret

std::string error_text(Error e) { return std::string(zk::wire::error_name(e)); }

std::string hex(int64_t v) {
  char buf[17];
  auto end = std::to_chars(buf, buf + sizeof buf, static_cast<uint64_t>(v), 16).ptr;
  return std::string(buf, end);
}

class ReconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EnsembleOptions options = flavoured_ensemble_options();
    options.voters = 3;
    options.spares = 1;
    options.extra_lines = {"reconfigEnabled=true",
                           std::string("DigestAuthenticationProvider.superDigest=") + kSuperDigest};
    options.temp_dir_prefix = "zk_reconfig_test";
    auto started = Ensemble::start(options);
    ASSERT_TRUE(started.ensemble) << started.error;
    ensemble_ = std::move(started.ensemble);
    auto leader = ensemble_->wait_for_leader(kDeadline);
    ASSERT_TRUE(leader) << "no unique leader";
    leader_ = *leader;
  }

  void TearDown() override { keep_if_failed(ensemble_.get(), HasFailure()); }

  // A session on node `id` alone; a superuser's unless `super` is false.
  std::unique_ptr<SyncClient> connect(int id, bool super = true) {
    return connect_node(*ensemble_, id, super ? "super:secret" : "");
  }

  // /zookeeper/config on node `id`, after a sync (so that it has applied
  // what the leader committed before).
  std::string config_on(int id) {
    auto client = connect(id, false);
    if (!client) return {};
    EXPECT_TRUE(client->sync("/zookeeper/config").ok());
    auto got = client->get_data("/zookeeper/config");
    if (!got.ok()) return "(" + error_text(got.error()) + ")";
    return got->data.value_or("");
  }

  std::unique_ptr<Ensemble> ensemble_;
  int leader_ = 0;
};

TEST_F(ReconfigTest, AddsAServerRemovesTheLeaderAndKeepsTheMembershipAcrossRestarts) {
  // A session of an original member, to move to the added server.
  auto before = open_session(ensemble_->node(1).host(), ensemble_->node(1).port(),
                             new_session_request(20000));
  ASSERT_TRUE(before && before->response.timeout_ms > 0);
  ASSERT_EQ(ensemble_->start_spare(), "");
  auto admin = connect(leader_ == 1 ? 2 : 1);
  ASSERT_TRUE(admin);
  zk::wire::ReconfigRequest add;
  add.joining = ensemble_->spare_line(4);
  auto added = admin->reconfig(add);
  ASSERT_TRUE(added.ok()) << error_text(added.error());
  const std::string config = added->data.value_or("");
  EXPECT_NE(config.find("server.4=127.0.0.1:"), std::string::npos) << config;
  EXPECT_TRUE(config.ends_with("\nversion=" + hex(added->stat.mzxid))) << config;
  EXPECT_EQ(added->stat.version, -1);

  ASSERT_EQ(ensemble_->wait_serving(4, kDeadline), "") << ensemble_->logs();
  // Its password holds on the added server (the ensemble's session key does
  // not depend on the membership).
  zk::wire::ConnectRequest resume = new_session_request(20000);
  resume.session_id = before->response.session_id;
  resume.passwd = before->response.passwd;
  before.reset();  // its connection closes
  auto moved = open_session(ensemble_->node(4).host(), ensemble_->node(4).port(), resume);
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->response.session_id, resume.session_id);
  EXPECT_GT(moved->response.timeout_ms, 0) << "the session was refused on the added server";
  auto on_new = connect(4, false);
  ASSERT_TRUE(on_new);
  auto created = on_new->create("/written-through-4", std::string("x"));
  ASSERT_TRUE(created.ok()) << error_text(created.error());
  for (int id = 1; id <= 4; ++id) EXPECT_EQ(config_on(id), config) << "node " << id;

  // The leader leaves: a remaining voter leads, and nothing is lost.
  zk::wire::ReconfigRequest remove;
  remove.leaving = std::to_string(leader_);
  remove.from_config = added->stat.mzxid;
  // The answer may be lost: every server leaves the old leader's epoch and
  // closes its clients, often before the answer leaves (Apache 3.8 the same).
  auto removed = admin->reconfig(remove);
  if (!removed.ok()) {
    EXPECT_EQ(removed.error(), Error::kConnectionLoss) << error_text(removed.error());
  }
  auto next_leader = ensemble_->wait_for_leader(kDeadline, {leader_});
  ASSERT_TRUE(next_leader) << ensemble_->logs();
  std::vector<int> remaining;
  for (int id = 1; id <= 4; ++id) {
    if (id != leader_) remaining.push_back(id);
  }
  const std::string smaller = config_on(*next_leader);
  EXPECT_EQ(smaller.find("server." + std::to_string(leader_) + "="), std::string::npos) << smaller;
  EXPECT_NE(smaller.find("server.4="), std::string::npos) << smaller;
  if (removed.ok()) {
    EXPECT_EQ(removed->data.value_or(""), smaller);
  }
  for (int id : remaining) {
    ASSERT_EQ(ensemble_->wait_serving(id, kDeadline), "") << "node " << id;
    auto client = connect(id, false);
    ASSERT_TRUE(client);
    auto exists = client->exists("/written-through-4");
    ASSERT_TRUE(exists.ok()) << error_text(exists.error());
    EXPECT_TRUE(exists->has_value()) << "node " << id;
    EXPECT_EQ(config_on(id), smaller) << "node " << id;
    const auto conf =
        four_letter_word(ensemble_->node(id).host(), ensemble_->node(id).port(), "conf");
    ASSERT_TRUE(conf) << "node " << id;
    EXPECT_TRUE(conf->ends_with("membership: \n" + smaller)) << "node " << id << ": " << *conf;
  }

  // Restarted, the remaining servers keep the new membership (their zoo.cfg
  // still names the old one).
  ASSERT_TRUE(ensemble_->kill(leader_));
  for (int id : remaining) ASSERT_TRUE(ensemble_->kill(id)) << "node " << id;
  for (int id : remaining) ASSERT_EQ(ensemble_->respawn(id), "") << "node " << id;
  for (int id : remaining) {
    ASSERT_EQ(ensemble_->wait_serving(id, kDeadline), "") << "node " << id << ensemble_->logs();
  }
  for (int id : remaining) EXPECT_EQ(config_on(id), smaller) << "node " << id;
}

TEST_F(ReconfigTest, RefusesAsApacheDoes) {
  auto plain = connect(1, false);
  ASSERT_TRUE(plain);
  zk::wire::ReconfigRequest observer;
  observer.joining = "server.99=127.0.0.1:1:2:observer;127.0.0.1:3";
  auto no_auth = plain->reconfig(observer);
  ASSERT_FALSE(no_auth.ok());
  EXPECT_EQ(no_auth.error(), Error::kNoAuth) << error_text(no_auth.error());

  zk::wire::ReconfigRequest bad;
  bad.joining = "some thing";
  auto bad_arguments = plain->reconfig(bad);
  ASSERT_FALSE(bad_arguments.ok());
  EXPECT_EQ(bad_arguments.error(), Error::kBadArguments) << error_text(bad_arguments.error());

  auto admin = connect(1);
  ASSERT_TRUE(admin);
  const std::string before = config_on(1);
  zk::wire::ReconfigRequest future = observer;
  future.from_config = 0x7fff00000001;
  auto bad_version = admin->reconfig(future);
  ASSERT_FALSE(bad_version.ok());
  EXPECT_EQ(bad_version.error(), Error::kBadVersion) << error_text(bad_version.error());

  // The leader and two servers that do not run: no majority of them in sync.
  // The leader's own line as the current configuration gives it.
  zk::wire::ReconfigRequest unreachable;
  const size_t at = before.find("server." + std::to_string(leader_) + "=");
  ASSERT_NE(at, std::string::npos) << before;
  unreachable.new_members = before.substr(at, before.find('\n', at) - at) +
                            ",server.8=127.0.0.1:5:6,server.9=127.0.0.1:7:8";
  auto no_quorum = admin->reconfig(unreachable);
  ASSERT_FALSE(no_quorum.ok());
  EXPECT_EQ(no_quorum.error(), Error::kNewConfigNoQuorum) << error_text(no_quorum.error());

  // Nothing changed, and an observer that never runs can be added.
  EXPECT_EQ(config_on(1), before);
  auto added = admin->reconfig(observer);
  ASSERT_TRUE(added.ok()) << error_text(added.error());
  EXPECT_NE(added->data.value_or("").find("server.99=127.0.0.1:1:2:observer;127.0.0.1:3"),
            std::string::npos);
}

}  // namespace
}  // namespace zk::lab
