// SPDX-License-Identifier: Apache-2.0
// The server's side of the audit log: off by default, audit.impl.class
// checked, the server's own events once each, what a closed session's
// ephemerals make.
#include "zkd/server/audit_trail.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tests/common/temp_dir.h"
#include "zkd/clock/real_time.h"
#include "zkd/server/jvm_properties.h"

namespace zkd::server {
namespace {

class RecordingSink final : public audit::AuditSink {
 public:
  explicit RecordingSink(std::vector<std::string>& lines) : lines_(lines) {}
  void write(const audit::AuditEvent& event) override {
    lines_.push_back(audit::audit_message(event));
  }

 private:
  std::vector<std::string>& lines_;
};

TEST(AuditTrail, IsOffUnlessEnabled) {
  AuditTrail trail;
  ServerConfig config;
  ASSERT_TRUE(trail.open(config, real_clock(), "zk").ok());
  EXPECT_FALSE(trail.enabled());
  trail.started();
  trail.stopping();  // nothing to write to, nothing written
}

TEST(AuditTrail, AnotherAuditLoggerClassStopsStartUp) {
  zk::test::TempDir dir("zkd-audit-trail");
  ServerConfig config;
  config.data_dir = dir.path();
  config.audit_enabled = true;
  config.audit_impl_class = "com.example.MyAuditLogger";
  AuditTrail trail;
  Status s = trail.open(config, real_clock(), "zk");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.kind(), Status::Kind::kConfig);
  EXPECT_NE(s.message().find("audit.impl.class=com.example.MyAuditLogger"), std::string::npos);

  config.audit_impl_class = std::string(kSlf4jAuditLogger);
  AuditTrail apaches;
  ASSERT_TRUE(apaches.open(config, real_clock(), "zk").ok());
  EXPECT_TRUE(apaches.enabled());
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "zookeeper_audit.log"));
}

TEST(AuditTrail, ServerEventsComeOnceEachAndStopOnlyAfterStart) {
  std::vector<std::string> lines;
  AuditTrail failed;
  failed.use_sink(std::make_unique<RecordingSink>(lines), "zk");
  failed.start_failed();
  failed.stopping();
  EXPECT_EQ(lines, std::vector<std::string>{"user=zk\toperation=serverStart\tresult=failure"});

  lines.clear();
  AuditTrail trail;
  trail.use_sink(std::make_unique<RecordingSink>(lines), "zk");
  trail.started();
  trail.stopping();
  trail.stopping();
  EXPECT_EQ(lines, (std::vector<std::string>{"user=zk\toperation=serverStart\tresult=success",
                                             "user=zk\toperation=serverStop\tresult=invoked"}));
}

TEST(AuditTrail, AClosedSessionsEphemeralsAreTheServersDeletions) {
  std::vector<std::string> lines;
  AuditTrail trail;
  trail.use_sink(std::make_unique<RecordingSink>(lines), "zk");
  tree::Txn close;
  close.header.session_id = 0x1000;
  close.header.type = zk::wire::OpCode::kCloseSession;
  close.body = tree::CloseSessionTxn{};
  tree::ApplyResult result;
  result.closed_ephemerals = {{"/e", true}, {"/gone", false}};
  trail.applied(close, result);
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "session=0x1000\tuser=zk\toperation="
                       "ephemeralZNodeDeletionOnSessionCloseOrExpire\tznode=/e\tresult=success",
                       "session=0x1000\tuser=zk\toperation="
                       "ephemeralZNodeDeletionOnSessionCloseOrExpire\tznode=/gone\tresult=failure",
                   }));
}

TEST(AuditTrail, TheServersUserIsItsKerberosPrincipalElseTheProcesssUser) {
  EXPECT_EQ(server_user("zookeeper/zk1.example.com@EXAMPLE.COM"),
            "zookeeper/zk1.example.com@EXAMPLE.COM");
  EXPECT_FALSE(server_user("").empty());
}

TEST(JvmProperties, AuditEnableFromEitherVariableJvmflagsLast) {
  ServerConfig config;
  apply_jvm_properties(config, "-Dzookeeper.audit.enable=true", "-Dzookeeper.audit.enable=no");
  EXPECT_FALSE(config.audit_enabled);  // JVMFLAGS comes later on Java's command line
  apply_jvm_properties(config, "-Xmx1g -Daudit.enable=true", "");
  EXPECT_FALSE(config.audit_enabled);  // the property's name has Apache's prefix
  apply_jvm_properties(config, "-Xmx1g", "-Dzookeeper.audit.enable=TRUE");
  EXPECT_TRUE(config.audit_enabled);
}

}  // namespace
}  // namespace zkd::server
