// SPDX-License-Identifier: Apache-2.0
// SASL between servers (quorum.auth.*) on a real 3-node zkd ensemble: the
// JAAS file's QuorumLearner user authenticates each link to the server it
// dials, whose QuorumServer section lists it, both ends requiring it. The
// ensemble elects and replicates; a node restarted with a wrong password is
// refused by its peers (logged) and does not serve, and serves again once
// its password is right.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "libzk/client/sync_client.h"
#include "tests/lab/lab_test_util.h"
#include "toolkit/poll_until.h"
#include "zklab/process/ensemble.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using zk::client::SyncClient;

constexpr auto kSessionTimeout = 10s;
constexpr auto kConnectDeadline = 20s;
constexpr auto kElectionDeadline = 30s;

std::string jaas(const std::string& learner_password) {
  return "QuorumServer {\n"
         "  org.apache.zookeeper.server.auth.DigestLoginModule required\n"
         "  user_zkpeer=\"peersecret\";\n"
         "};\n"
         "QuorumLearner {\n"
         "  org.apache.zookeeper.server.auth.DigestLoginModule required\n"
         "  username=\"zkpeer\"\n"
         "  password=\"" +
         learner_password + "\";\n};\n";
}

class EnsembleQuorumSaslTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("zk-quorum-sasl");
    ASSERT_FALSE(dir_.empty());
    std::ofstream(dir_ / "jaas.conf") << jaas("peersecret");
    std::ofstream(dir_ / "wrong.conf") << jaas("guess");
    EnsembleOptions options;
    options.zkd_binary = zkd_binary();
    options.voters = 3;
    options.extra_lines = {"quorum.auth.enableSasl=true", "quorum.auth.learnerRequireSasl=true",
                           "quorum.auth.serverRequireSasl=true"};
    options.environment = {flags(dir_ / "jaas.conf")};
    options.temp_dir_prefix = "zk_ensemble_quorum_sasl_test";
    auto started = Ensemble::start(options);
    ASSERT_TRUE(started.ensemble) << started.error;
    ensemble_ = std::move(started.ensemble);
  }

  void TearDown() override {
    keep_if_failed(ensemble_.get(), HasFailure());
    ensemble_.reset();
    std::filesystem::remove_all(dir_);
  }

  static std::string flags(const std::filesystem::path& jaas) {
    return "SERVER_JVMFLAGS=-Djava.security.auth.login.config=" + jaas.string();
  }

  // Waits until node `id`'s log holds `text`.
  bool wait_for_log(int id, const std::string& text, std::chrono::milliseconds deadline) {
    // Polling a file: no event to wait on.
    return zk::toolkit::poll_until(
        [&] { return ensemble_->node(id).log().find(text) != std::string::npos; }, deadline, 20ms);
  }

  std::filesystem::path dir_;
  std::unique_ptr<Ensemble> ensemble_;
};

TEST_F(EnsembleQuorumSaslTest, PeersAuthenticateAndAWrongPasswordKeepsANodeOut) {
  auto leader = ensemble_->wait_for_leader(kElectionDeadline);
  ASSERT_TRUE(leader);
  // Each link is authenticated by the smaller id, which accepts it. (A
  // serving ensemble needs only the leader's links: others may still come.)
  for (const auto& [acceptor, dialer] : {std::pair{1, 2}, std::pair{1, 3}, std::pair{2, 3}}) {
    EXPECT_TRUE(wait_for_log(
        acceptor, "peer " + std::to_string(dialer) + " authenticated with quorum SASL as zkpeer",
        20s))
        << "node " << acceptor;
  }
  SyncClient writer;
  ASSERT_TRUE(writer.connect(ensemble_->address(1), kSessionTimeout, kConnectDeadline).ok());
  ASSERT_TRUE(writer.create("/quorum-sasl", std::string("replicated")).ok());

  // Node 3 dials 1 and 2: with a wrong password both refuse it.
  ASSERT_TRUE(ensemble_->kill(3));
  ensemble_->node(3).set_environment({flags(dir_ / "wrong.conf")});
  ASSERT_EQ(ensemble_->respawn(3), "");
  EXPECT_TRUE(wait_for_log(1, "quorum SASL with server 3 failed", 20s)) << ensemble_->logs();
  EXPECT_FALSE(is_serving(ensemble_->mode(3)));

  ASSERT_TRUE(ensemble_->kill(3));
  ensemble_->node(3).set_environment({flags(dir_ / "jaas.conf")});
  ASSERT_EQ(ensemble_->restart(3, kElectionDeadline), "");
  SyncClient reader;
  ASSERT_TRUE(reader.connect(ensemble_->address(3), kSessionTimeout, kConnectDeadline).ok());
  ASSERT_TRUE(reader.sync("/quorum-sasl").ok());
  auto got = reader.get_data("/quorum-sasl");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->data, std::optional<std::string>("replicated"));
}

}  // namespace
}  // namespace zk::lab
