// SPDX-License-Identifier: Apache-2.0
// ServerTest: a GoogleTest fixture for zk::client tests against a real server
// (test_server.h: Apache ZooKeeper 3.8 or zkd, chosen by ZK_TEST_SERVER).
//
// One server per test suite, started in SetUpTestSuite; every test is skipped
// with the reason when it cannot start. Each test gets its own root znode
// /<test name>, created by `admin_` (a session opened in SetUp), and p(name)
// names a child of it.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "libzk/client/sync_client.h"
#include "tests/unit/libzk/client/test_server.h"

namespace zk::client::testing {

inline constexpr std::chrono::seconds kDeadline{20};        // what should happen promptly
inline constexpr std::chrono::seconds kSessionTimeout{10};  // ordinary sessions

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why = TestServer::unavailable_reason();
    if (!why.empty()) {
      skip_reason_ = std::make_unique<std::string>(why);
      return;
    }
    server_ = std::make_unique<TestServer>();
    if (!server_->start()) {
      skip_reason_ = std::make_unique<std::string>("server did not start: " + server_->error());
      server_.reset();
    }
  }
  static void TearDownTestSuite() {
    server_.reset();
    skip_reason_.reset();
  }

  void SetUp() override {
    if (skip_reason_) GTEST_SKIP() << *skip_reason_;
    root_ = std::string("/") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    admin_ = connect();
    ASSERT_TRUE(admin_->create(root_, std::string("root")).ok());
  }

  // A new session on the server; `suffix` is appended to the address (a chroot).
  std::unique_ptr<SyncClient> connect(const std::string& suffix = "",
                                      std::chrono::milliseconds timeout = kSessionTimeout,
                                      ClientOptions options = {}) {
    auto c = std::make_unique<SyncClient>(std::move(options));
    Status s = c->connect(server_->address() + suffix, timeout, kDeadline);
    EXPECT_TRUE(s.ok()) << zk::wire::error_name(s.error());
    return c;
  }

  // The path of `name` under this test's root.
  std::string p(const std::string& name) const { return root_ + "/" + name; }

  static inline std::unique_ptr<TestServer> server_;
  static inline std::unique_ptr<std::string> skip_reason_;
  std::string root_;
  std::unique_ptr<SyncClient> admin_;
};

}  // namespace zk::client::testing
