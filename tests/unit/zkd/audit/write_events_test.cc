// SPDX-License-Identifier: Apache-2.0
// Which events Apache's AuditHelper makes of a write, replayed on zkd's txns;
// the expected texts are lines Apache ZooKeeper 3.8 wrote for the same
// requests.
#include "zkd/audit/write_events.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "libzk/wire/multi.h"

namespace zkd::audit {
namespace {

using zk::wire::CreateMode;
using zk::wire::Error;
using zk::wire::OpCode;

const Requester kAlice{0x100027bbf1d0000, "127.0.0.1,alice", "127.0.0.1"};
constexpr std::string_view kWho = "session=0x100027bbf1d0000\tuser=127.0.0.1,alice\tip=127.0.0.1\t";

std::vector<std::string> texts(const std::vector<AuditEvent>& events) {
  std::vector<std::string> out;
  for (const AuditEvent& e : events) out.push_back(audit_message(e));
  return out;
}

std::string who(std::string_view rest) { return std::string(kWho) + std::string(rest); }

tree::Txn txn_of(OpCode type, tree::TxnBody body) {
  tree::Txn txn;
  txn.header.session_id = kAlice.session;
  txn.header.type = type;
  txn.body = std::move(body);
  return txn;
}

// Txn bodies naming `path`.
template <typename Body>
Body at(std::string path) {
  Body body{};
  body.path = std::move(path);
  return body;
}

tree::Txn error_txn(Error err) { return txn_of(OpCode::kError, tree::ErrorTxn{err}); }

std::string create_body(const std::string& path, int32_t flags) {
  zk::wire::CreateRequest request;
  request.path = path;
  request.acl = zk::wire::open_acl_unsafe();
  request.flags = flags;
  return zk::wire::encode(request);
}

TEST(WriteEvents, ACreateNamesTheNodeCreatedAndTheRequestedMode) {
  const auto txn = txn_of(OpCode::kCreate, at<tree::CreateTxn>("/a/s-0000000000"));
  EXPECT_EQ(texts(write_events(kAlice, OpCode::kCreate, create_body("/a/s-", 2), txn, Error::kOk)),
            std::vector{who("operation=create\tznode=/a/s-0000000000\t"
                            "znode_type=persistent_sequential\tresult=success")});
}

TEST(WriteEvents, AFailedCreateNamesTheRequestedPath) {
  EXPECT_EQ(texts(write_events(kAlice, OpCode::kCreate2, create_body("/a", 0),
                               error_txn(Error::kNodeExists), Error::kNodeExists)),
            std::vector{who("operation=create\tznode=/a\tznode_type=persistent\tresult=failure")});
}

TEST(WriteEvents, ACreateContainerIsACreate) {
  const auto txn = txn_of(OpCode::kCreateContainer, at<tree::CreateContainerTxn>("/c"));
  EXPECT_EQ(
      texts(write_events(kAlice, OpCode::kCreateContainer, create_body("/c", 4), txn, Error::kOk)),
      std::vector{who("operation=create\tznode=/c\tznode_type=container\tresult=success")});
}

TEST(WriteEvents, CreateTtlAndUndecodableRequestsMakeNoEvent) {
  EXPECT_TRUE(write_events(kAlice, OpCode::kCreateTTL, "", error_txn(Error::kUnimplemented),
                           Error::kUnimplemented)
                  .empty());
  EXPECT_TRUE(write_events(kAlice, OpCode::kCreate, create_body("/a", 9),
                           error_txn(Error::kBadArguments), Error::kBadArguments)
                  .empty());
  EXPECT_TRUE(write_events(kAlice, OpCode::kSetData, "\x01", error_txn(Error::kMarshallingError),
                           Error::kMarshallingError)
                  .empty());
}

TEST(WriteEvents, DeleteAndSetDataNameTheirNode) {
  EXPECT_EQ(texts(write_events(kAlice, OpCode::kDelete,
                               zk::wire::encode(zk::wire::DeleteRequest{"/a", -1}),
                               txn_of(OpCode::kDelete, tree::DeleteTxn{"/a"}), Error::kOk)),
            std::vector{who("operation=delete\tznode=/a\tresult=success")});
  zk::wire::SetDataRequest set{"/a", std::string("y"), 99};
  EXPECT_EQ(texts(write_events(kAlice, OpCode::kSetData, zk::wire::encode(set),
                               error_txn(Error::kBadVersion), Error::kBadVersion)),
            std::vector{who("operation=setData\tznode=/a\tresult=failure")});
}

TEST(WriteEvents, SetAclCarriesTheRequestedAcl) {
  zk::wire::SetACLRequest request{
      "/a", {{31, {"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="}}}, -1};
  const std::string expected_acl = "acl=digest:alice:V55/p2T0OpjQ+low3NVAH4aLvm0=:cdrwa\t";
  EXPECT_EQ(texts(write_events(kAlice, OpCode::kSetACL, zk::wire::encode(request),
                               txn_of(OpCode::kSetACL, tree::SetACLTxn{"/a", {}, 1}), Error::kOk)),
            std::vector{who("operation=setAcl\tznode=/a\t" + expected_acl + "result=success")});
  EXPECT_EQ(texts(write_events(kAlice, OpCode::kSetACL, zk::wire::encode(request),
                               error_txn(Error::kNoAuth), Error::kNoAuth)),
            std::vector{who("operation=setAcl\tznode=/a\t" + expected_acl + "result=failure")});
}

TEST(WriteEvents, AMultiLogsItsChangesAndASequentialCreateWithoutMode) {
  const std::string body = zk::wire::encode_multi_request({
      zk::wire::multi_create("/m1", std::string()),
      zk::wire::multi_create("/m2-", std::string(), CreateMode::kPersistentSequential),
      zk::wire::multi_set_data("/m1", std::string("z")),
      zk::wire::multi_remove("/m1"),
      zk::wire::multi_check("/a", 1),
  });
  tree::MultiTxn multi;
  multi.ops.push_back(txn_of(OpCode::kCreate, at<tree::CreateTxn>("/m1")));
  multi.ops.push_back(txn_of(OpCode::kCreate, at<tree::CreateTxn>("/m2-0000000004")));
  multi.ops.push_back(txn_of(OpCode::kSetData, at<tree::SetDataTxn>("/m1")));
  multi.ops.push_back(txn_of(OpCode::kDelete, tree::DeleteTxn{"/m1"}));
  multi.ops.push_back(txn_of(OpCode::kCheck, tree::CheckVersionTxn{"/a", 1}));
  EXPECT_EQ(texts(write_events(kAlice, OpCode::kMulti, body,
                               txn_of(OpCode::kMulti, std::move(multi)), Error::kOk)),
            (std::vector{
                who("operation=create\tznode=/m1\tznode_type=persistent\tresult=success"),
                who("operation=create\tznode=/m2-0000000004\tresult=success"),
                who("operation=setData\tznode=/m1\tresult=success"),
                who("operation=delete\tznode=/m1\tresult=success"),
            }));
}

TEST(WriteEvents, AFailedMultiIsOneFailureWithoutZnode) {
  const std::string body = zk::wire::encode_multi_request(
      {zk::wire::multi_create("/m3", std::string()), zk::wire::multi_create("/a", std::string())});
  tree::MultiTxn multi;
  multi.ops.push_back(txn_of(OpCode::kError, tree::ErrorTxn{Error::kOk}));
  multi.ops.push_back(txn_of(OpCode::kError, tree::ErrorTxn{Error::kNodeExists}));
  EXPECT_EQ(texts(write_events(kAlice, OpCode::kMulti, body,
                               txn_of(OpCode::kMulti, std::move(multi)), Error::kOk)),
            std::vector{who("operation=multiOperation\tresult=failure")});
  EXPECT_EQ(texts(write_events(kAlice, OpCode::kMulti, body, error_txn(Error::kSessionMoved),
                               Error::kSessionMoved)),
            std::vector{who("operation=multiOperation\tresult=failure")});
}

TEST(WriteEvents, ReconfigNamesTheConfigNodeUnlessItFailedBefore) {
  EXPECT_EQ(texts(write_events(kAlice, OpCode::kReconfig, "",
                               txn_of(OpCode::kReconfig, at<tree::SetDataTxn>("/zookeeper/config")),
                               Error::kOk)),
            std::vector{who("operation=reconfig\tznode=/zookeeper/config\tresult=success")});
  EXPECT_EQ(texts(write_events(kAlice, OpCode::kReconfig, "", error_txn(Error::kReconfigDisabled),
                               Error::kReconfigDisabled)),
            std::vector{who("operation=reconfig\tresult=failure")});
}

TEST(WriteEvents, OtherOperationsMakeNone) {
  EXPECT_TRUE(write_events(kAlice, OpCode::kCloseSession, "",
                           txn_of(OpCode::kCloseSession, tree::CloseSessionTxn{}), Error::kOk)
                  .empty());
  EXPECT_TRUE(write_events(kAlice, OpCode::kCheck, "", error_txn(Error::kUnimplemented),
                           Error::kUnimplemented)
                  .empty());
}

TEST(WriteEvents, AWriteWithoutUsersHasNoUserField) {
  const Requester anonymous{1, std::nullopt, "0:0:0:0:0:0:0:1"};
  EXPECT_EQ(texts(write_events(anonymous, OpCode::kDelete, "",
                               txn_of(OpCode::kDelete, tree::DeleteTxn{"/x"}), Error::kOk)),
            std::vector<std::string>{
                "session=0x1\tip=0:0:0:0:0:0:0:1\toperation=delete\tznode=/x\tresult=success"});
}

TEST(UsersText, JoinsEachIdsUserAsApachesAuthUtil) {
  EXPECT_EQ(users_text({{"ip", "127.0.0.1"}, {"digest", "alice:hash="}}), "127.0.0.1,alice");
  EXPECT_EQ(users_text({{"super", ""}, {"digest", "super:x="}}), "super");
  EXPECT_EQ(users_text({{"sasl", "zkcli@EXAMPLE.COM"}, {"x509", "CN=c"}}),
            "zkcli@EXAMPLE.COM,CN=c");
  EXPECT_EQ(users_text({{"digest", ":x="}, {"ip", " "}}), std::nullopt);
  EXPECT_EQ(users_text({}), std::nullopt);
}

TEST(ServerEvents, AreTheServersUsers) {
  EXPECT_EQ(audit_message(ephemeral_deletion_event(0x100027bbf1d0000, "/e", true, "root")),
            "session=0x100027bbf1d0000\tuser=root\t"
            "operation=ephemeralZNodeDeletionOnSessionCloseOrExpire\tznode=/e\tresult=success");
  EXPECT_EQ(audit_message(ephemeral_deletion_event(2, "/e", false, "zk")).substr(0, 4), "sess");
  EXPECT_EQ(ephemeral_deletion_event(2, "/e", false, "zk").result, AuditResult::kFailure);
  EXPECT_EQ(audit_message(server_event(kOpServerStart, AuditResult::kSuccess, "root")),
            "user=root\toperation=serverStart\tresult=success");
  EXPECT_EQ(audit_message(server_event(kOpServerStop, AuditResult::kInvoked, "root")),
            "user=root\toperation=serverStop\tresult=invoked");
}

}  // namespace
}  // namespace zkd::audit
