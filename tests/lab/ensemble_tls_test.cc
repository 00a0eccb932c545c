// SPDX-License-Identifier: Apache-2.0
// sslQuorum: three zkd processes whose peer links run over mutually
// authenticated TLS (ssl.quorum.* keys, one identity naming 127.0.0.1 that is
// also the trust store) elect a leader, replicate a write made on a follower
// to every node, and elect again when the leader is killed.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "libzk/client/sync_client.h"
#include "tests/common/temp_dir.h"
#include "tests/lab/lab_test_util.h"
#include "zklab/process/certificates.h"
#include "zklab/process/ensemble.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using zk::client::SyncClient;

constexpr auto kSessionTimeout = 10s;
constexpr auto kConnectDeadline = 20s;
constexpr auto kElectionDeadline = 30s;

class EnsembleTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const zk::lab::Identity identity("server", "127.0.0.1");
    identity.write_pem((stores_ / "keystore.pem").string());
    identity.write_pem((stores_ / "truststore.pem").string(), false);

    EnsembleOptions options;
    options.zkd_binary = zkd_binary();
    options.voters = 3;
    options.extra_lines = {
        "sslQuorum=true",
        "ssl.quorum.keyStore.location=" + (stores_ / "keystore.pem").string(),
        "ssl.quorum.trustStore.location=" + (stores_ / "truststore.pem").string(),
    };
    options.temp_dir_prefix = "zk_ensemble_tls_test";
    auto started = Ensemble::start(options);
    ASSERT_TRUE(started.ensemble) << started.error;
    ensemble_ = std::move(started.ensemble);
  }

  void TearDown() override {
    keep_if_failed(ensemble_.get(), HasFailure());
    ensemble_.reset();
  }

  std::unique_ptr<SyncClient> connect(int id) {
    auto client = std::make_unique<SyncClient>();
    auto st = client->connect(ensemble_->address(id), kSessionTimeout, kConnectDeadline);
    EXPECT_TRUE(st.ok()) << "node " << id << ": " << zk::wire::error_name(st.error());
    return st.ok() ? std::move(client) : nullptr;
  }

  zk::test::TempDir temp_{"zk-quorum-tls"};
  const std::filesystem::path& stores_ = temp_.path();
  std::unique_ptr<Ensemble> ensemble_;
};

TEST_F(EnsembleTlsTest, ReplicatesOverTlsAndElectsAgainAfterTheLeaderDies) {
  auto leader = ensemble_->wait_for_leader(kElectionDeadline);
  ASSERT_TRUE(leader);
  const int follower = *leader == 1 ? 2 : 1;
  auto writer = connect(follower);
  ASSERT_TRUE(writer);
  ASSERT_TRUE(writer->create("/over-tls", std::string("replicated"), {}).ok());
  for (int id : ensemble_->ids()) {
    auto reader = connect(id);
    ASSERT_TRUE(reader);
    ASSERT_TRUE(reader->sync("/").ok());
    auto got = reader->get_data("/over-tls");
    ASSERT_TRUE(got.ok()) << "node " << id;
    EXPECT_EQ(got.value().data, std::string("replicated")) << "node " << id;
  }

  ASSERT_TRUE(ensemble_->kill(*leader));
  auto next = ensemble_->wait_for_leader(kElectionDeadline, {*leader});
  ASSERT_TRUE(next) << "no new leader over the TLS links";
  auto after = connect(*next);
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->create("/after-failover", std::string("x"), {}).ok());
}

}  // namespace
}  // namespace zk::lab
