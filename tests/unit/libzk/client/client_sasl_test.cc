// SPDX-License-Identifier: Apache-2.0
// zk::client's SASL (libzk/client/sasl.h) against a real server with a JAAS
// file, the same test against zkd and Apache ZooKeeper 3.8 (test_server.h):
// DIGEST-MD5 with the right password gives the session the id sasl:<user>,
// which ACLs then let in and keep others out; a wrong password ends the
// session in kAuthFailed, says why, and leaves the server serving others.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "libzk/client/sync_client.h"
#include "tests/unit/libzk/client/test_server.h"
#include "zklab/process/zkd_process.h"

namespace zk::client::testing {
namespace {

constexpr std::chrono::seconds kDeadline{20};
constexpr std::chrono::seconds kSessionTimeout{10};

class SaslTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (std::string why = TestServer::unavailable_reason(); !why.empty()) {
      skip_reason_ = std::make_unique<std::string>(why);
      return;
    }
    dir_ = std::make_unique<std::filesystem::path>(zk::lab::make_temp_dir("zk-sasl-test"));
    const auto jaas = *dir_ / "jaas.conf";
    std::ofstream(jaas) << "Server {\n"
                           "  org.apache.zookeeper.server.auth.DigestLoginModule required\n"
                           "  user_bob=\"bobsecret\";\n"
                           "};\n";
    TestServerOptions options;
    options.extra_lines = {
        "authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider"};
    options.jaas_file = jaas.string();
    server_ = std::make_unique<TestServer>(options);
    if (!server_->start()) {
      skip_reason_ = std::make_unique<std::string>("server did not start: " + server_->error());
      server_.reset();
    }
  }
  static void TearDownTestSuite() {
    server_.reset();
    if (dir_) std::filesystem::remove_all(*dir_);
    dir_.reset();
    skip_reason_.reset();
  }
  void SetUp() override {
    if (skip_reason_) GTEST_SKIP() << *skip_reason_;
  }

  static ClientOptions as(const std::string& user, const std::string& password) {
    ClientOptions options;
    options.sasl = SaslOptions{};
    options.sasl->username = user;
    options.sasl->password = password;
    return options;
  }

  static inline std::unique_ptr<TestServer> server_;
  static inline std::unique_ptr<std::filesystem::path> dir_;
  static inline std::unique_ptr<std::string> skip_reason_;
};

TEST_F(SaslTest, DigestMd5GivesTheSessionItsSaslIdForAcls) {
  SyncClient bob(as("bob", "bobsecret"));
  Status connected = bob.connect(server_->address(), kSessionTimeout, kDeadline);
  ASSERT_TRUE(connected.ok()) << zk::wire::error_name(connected.error()) << " "
                              << bob.auth_failure();
  const zk::wire::ACLs only_bob = {{zk::wire::perms::kAll, {"sasl", "bob"}}};
  auto created =
      bob.create("/sasl-bob", std::string("mine"), zk::wire::CreateMode::kPersistent, only_bob);
  ASSERT_TRUE(created.ok()) << zk::wire::error_name(created.error());
  auto mine = bob.get_data("/sasl-bob");
  ASSERT_TRUE(mine.ok()) << zk::wire::error_name(mine.error());
  EXPECT_EQ(mine->data, std::optional<std::string>("mine"));

  SyncClient stranger;
  ASSERT_TRUE(stranger.connect(server_->address(), kSessionTimeout, kDeadline).ok());
  EXPECT_EQ(stranger.get_data("/sasl-bob").error(), Error::kNoAuth);
  EXPECT_TRUE(bob.remove("/sasl-bob").ok());
}

TEST_F(SaslTest, AWrongPasswordEndsTheSessionInAuthFailedAndOthersGoOn) {
  SyncClient mallory(as("bob", "guess"));
  Status connected = mallory.connect(server_->address(), kSessionTimeout, kDeadline);
  EXPECT_EQ(connected.error(), Error::kAuthFailed);
  EXPECT_EQ(mallory.state(), SessionState::kAuthFailed);
  EXPECT_NE(mallory.auth_failure().find("refused"), std::string::npos) << mallory.auth_failure();

  SyncClient other(as("bob", "bobsecret"));
  ASSERT_TRUE(other.connect(server_->address(), kSessionTimeout, kDeadline).ok())
      << other.auth_failure();
  EXPECT_TRUE(other.exists("/").ok());
}

}  // namespace
}  // namespace zk::client::testing
