// SPDX-License-Identifier: Apache-2.0
// setData (5) and setACL (7): Stat effects and validation order.
#include "tree_fixture.h"

namespace zkd::tree::testing {
namespace {

using zk::wire::Stat;

TEST_F(TreeTest, SetDataBumpsVersionAndModificationFields) {
  create("/p");                                            // 2
  create("/p/a", std::string("x"));                        // 3
  ApplyResult r = set_data("/p/a", std::string("hello"));  // 4
  ASSERT_EQ(r.response.err, Error::kOk);
  EXPECT_EQ(r.response.zxid, 4);
  Stat expected = fresh_stat(3, 5);
  expected.mzxid = 4;
  expected.mtime = time_of(4);
  expected.version = 1;
  EXPECT_EQ(decode_as<Stat>(r.response.body), expected);
  EXPECT_EQ(stat("/p/a"), expected);
  EXPECT_EQ(data("/p/a"), std::optional<std::string>("hello"));
  EXPECT_EQ(stat("/p").pzxid, 3);  // children's data changes leave the parent alone
  EXPECT_EQ(stat("/p").cversion, 1);
  EXPECT_EQ(std::get<SetDataTxn>(last_txn.body).version, 1);
}

TEST_F(TreeTest, SetDataSameBytesStillChangesVersion) {
  create("/a", std::string("x"));
  set_data("/a", std::string("x"));
  set_data("/a", std::string("x"));
  EXPECT_EQ(stat("/a").version, 2);
  EXPECT_EQ(stat("/a").mzxid, 4);
}

TEST_F(TreeTest, SetDataKeepsNullDistinctFromEmpty) {
  create("/a", std::string("x"));
  set_data("/a", std::nullopt);
  EXPECT_EQ(data("/a"), std::nullopt);
  set_data("/a", std::string());
  EXPECT_EQ(data("/a"), std::optional<std::string>(""));
  EXPECT_EQ(stat("/a").data_length, 0);
}

TEST_F(TreeTest, SetDataVersionMustMatchUnlessMinusOne) {
  create("/a");
  EXPECT_EQ(set_data("/a", std::string("1"), 1).response.err, Error::kBadVersion);
  EXPECT_EQ(set_data("/a", std::string("1"), 0).response.err, Error::kOk);
  EXPECT_EQ(set_data("/a", std::string("2"), -1).response.err, Error::kOk);
  EXPECT_EQ(stat("/a").version, 2);
}

TEST_F(TreeTest, SetDataValidationOrder) {
  EXPECT_EQ(set_data("/missing/", std::string()).response.err, Error::kBadArguments);
  EXPECT_EQ(set_data("noslash", std::string()).response.err, Error::kBadArguments);
  EXPECT_EQ(set_data("/missing", std::string(), 5).response.err, Error::kNoNode);
  int64_t z = next_zxid();
  Txn txn = db.prepare(kOther, 1, OpCode::kSetData,
                       encode(zk::wire::SetDataRequest{"bad", std::string(), -1}), z, time_of(z));
  EXPECT_EQ(std::get<ErrorTxn>(txn.body).err, Error::kSessionExpired);
  ApplyResult r = write(OpCode::kSetData, std::string("\x00\x00", 2));
  EXPECT_EQ(r.response.err, Error::kMarshallingError);
}

TEST_F(TreeTest, SystemNodesAcceptSetData) {
  EXPECT_EQ(set_data("/", std::string("r")).response.err, Error::kOk);
  EXPECT_EQ(set_data("/zookeeper", std::string("z")).response.err, Error::kOk);
  Stat root = stat("/");
  EXPECT_EQ(root.version, 1);
  EXPECT_EQ(root.cversion, -1);
  EXPECT_EQ(root.mzxid, 2);
}

TEST_F(TreeTest, SetAclBumpsAversionOnly) {
  create("/a", std::string("x"));  // 2
  zk::wire::ACLs acl{{zk::wire::perms::kRead, {"world", "anyone"}}};
  ApplyResult r = set_acl("/a", acl);  // 3
  ASSERT_EQ(r.response.err, Error::kOk);
  EXPECT_EQ(r.response.zxid, 3);
  Stat expected = fresh_stat(2, 1);
  expected.aversion = 1;
  EXPECT_EQ(decode_as<Stat>(r.response.body), expected);
  EXPECT_EQ(stat("/a"), expected);
  Response got = read(OpCode::kGetACL, "/a");
  auto reply = decode_as<zk::wire::GetACLResponse>(got.body);
  EXPECT_EQ(reply.acl, acl);
  EXPECT_EQ(reply.stat, expected);
  EXPECT_EQ(std::get<SetACLTxn>(last_txn.body).version, 1);
}

TEST_F(TreeTest, SetAclVersionIsComparedWithAversion) {
  create("/a");
  set_data("/a", std::string("x"));  // version 1, aversion 0
  EXPECT_EQ(set_acl("/a", zk::wire::open_acl_unsafe(), 1).response.err, Error::kBadVersion);
  EXPECT_EQ(set_acl("/a", zk::wire::open_acl_unsafe(), 0).response.err, Error::kOk);
  EXPECT_EQ(set_acl("/a", zk::wire::open_acl_unsafe(), -1).response.err, Error::kOk);
  EXPECT_EQ(stat("/a").aversion, 2);
  EXPECT_EQ(stat("/a").version, 1);
}

TEST_F(TreeTest, SetAclOnConfigNodeStartsFromMinusOne) {
  // Its ACL is READ for the world: only super may change it.
  EXPECT_EQ(set_acl("/zookeeper/config", zk::wire::open_acl_unsafe()).response.err, Error::kNoAuth);
  auto set_acl_as_super = [&](int32_t version) {
    int64_t z = next_zxid();
    last_txn = db.prepare(
        kSession, 7, OpCode::kSetACL,
        encode(zk::wire::SetACLRequest{"/zookeeper/config", zk::wire::open_acl_unsafe(), version}),
        z, time_of(z), AuthIds({{"super", ""}}));
    return db.apply(last_txn).response.err;
  };
  EXPECT_EQ(set_acl_as_super(0), Error::kBadVersion);
  EXPECT_EQ(set_acl_as_super(-1), Error::kOk);
  EXPECT_EQ(stat("/zookeeper/config").aversion, 0);
}

TEST_F(TreeTest, SetAclValidationOrder) {
  EXPECT_EQ(set_acl("/missing/", {}).response.err, Error::kBadArguments);
  EXPECT_EQ(set_acl("/missing", {}).response.err, Error::kInvalidACL);
  EXPECT_EQ(set_acl("/missing", zk::wire::open_acl_unsafe(), 7).response.err, Error::kNoNode);
  create("/a");
  EXPECT_EQ(set_acl("/a", {}, 7).response.err, Error::kInvalidACL);
  EXPECT_EQ(read(OpCode::kGetACL, "/a").body,
            encode(zk::wire::GetACLResponse{zk::wire::open_acl_unsafe(), stat("/a")}));
}

}  // namespace
}  // namespace zkd::tree::testing
