// SPDX-License-Identifier: Apache-2.0
// create (1) and create2 (15): Stat rules (§5), flags (§6.1), sequential
// names (§6.2), validation order (§6.3), error txns (§3.3); sections of
// docs/wire-protocol.md.
#include "tree_fixture.h"

namespace zkd::tree::testing {
namespace {

using zk::wire::Stat;

TEST_F(TreeTest, CreateSetsEveryStatFieldFromItsTxn) {
  ApplyResult r = create("/a", std::string("hello"));
  ASSERT_EQ(r.response.err, Error::kOk);
  EXPECT_EQ(r.response.zxid, 2);
  EXPECT_EQ(decode_as<zk::wire::PathRecord>(r.response.body).path, "/a");
  EXPECT_EQ(stat("/a"), fresh_stat(2, 5));
  EXPECT_EQ(data("/a"), std::optional<std::string>("hello"));
}

TEST_F(TreeTest, Create2RepliesWithPathAndStat) {
  ApplyResult r = create("/a", std::string("xy"), 0, kSession, OpCode::kCreate2);
  ASSERT_EQ(r.response.err, Error::kOk);
  auto reply = decode_as<zk::wire::Create2Response>(r.response.body);
  EXPECT_EQ(reply.path, "/a");
  EXPECT_EQ(reply.stat, fresh_stat(2, 2));
  EXPECT_EQ(reply.stat, stat("/a"));
  EXPECT_EQ(last_txn.header.type, OpCode::kCreate2);
}

TEST_F(TreeTest, ChildCreateChangesOnlyParentChildFields) {
  create("/p", std::string("d"));  // zxid 2
  create("/p/c1");                 // zxid 3
  Stat p = fresh_stat(2, 1);
  p.cversion = 1;
  p.num_children = 1;
  p.pzxid = 3;
  EXPECT_EQ(stat("/p"), p);
  create("/p/c2");  // zxid 4
  p.cversion = 2;
  p.num_children = 2;
  p.pzxid = 4;
  EXPECT_EQ(stat("/p"), p);
  EXPECT_EQ(children("/p"), (std::vector<std::string>{"c1", "c2"}));
}

TEST_F(TreeTest, RootCversionCountsFromMinusOne) {
  create("/a");
  Stat root = stat("/");
  EXPECT_EQ(root.cversion, 0);  // stored 1, two children: 2*1-2
  EXPECT_EQ(root.num_children, 2);
  EXPECT_EQ(root.pzxid, 2);
  EXPECT_EQ(root.czxid, 0);
  EXPECT_EQ(root.mzxid, 0);
}

// §5.2 LIVE: create+delete of one child -> cversion 2; two more creates -> 4.
TEST_F(TreeTest, CversionCountsCreatesAndDeletes) {
  create("/t");
  create("/t/x");
  remove("/t/x");
  EXPECT_EQ(stat("/t").cversion, 2);
  EXPECT_EQ(stat("/t").num_children, 0);
  create("/t/y");
  create("/t/z");
  EXPECT_EQ(stat("/t").cversion, 4);
}

// §6.2 LIVE: after 1 create + 1 delete the next sequential is ...01, then
// ...02; "/t/" + sequential gives "/t/0000000003".
TEST_F(TreeTest, SequentialSuffixComesFromStoredCreationCounter) {
  create("/t");
  create("/t/x");
  remove("/t/x");
  EXPECT_EQ(must_create("/t/s-", 2), "/t/s-0000000001");
  EXPECT_EQ(must_create("/t/s-", 2), "/t/s-0000000002");
  EXPECT_EQ(must_create("/t/", 2), "/t/0000000003");
  remove("/t/s-0000000001");
  EXPECT_EQ(must_create("/t/e-", 3), "/t/e-0000000004");
  Stat t = stat("/t");
  EXPECT_EQ(t.num_children, 3);
  EXPECT_EQ(t.cversion, 2 * 5 - 3);  // 5 creations, 2 deletions
  EXPECT_EQ(stat("/t/e-0000000004").ephemeral_owner, kSession);
  EXPECT_EQ(stat("/t/0000000003").ephemeral_owner, 0);
}

TEST_F(TreeTest, FirstSequentialUnderRootIsZero) {
  // The root's stored counter starts at 0: /zookeeper was not counted.
  EXPECT_EQ(must_create("/s", 2), "/s0000000000");
  EXPECT_EQ(must_create("/s", 2), "/s0000000001");
}

TEST_F(TreeTest, SequentialNameAlreadyTakenIsNodeExists) {
  create("/t");
  create("/t/n0000000001");  // counter 0 -> 1
  ApplyResult r = create("/t/n", std::string(), 2);
  EXPECT_EQ(r.response.err, Error::kNodeExists);
}

TEST_F(TreeTest, TxnCarriesParentCounterAfterCreate) {
  create("/t");
  create("/t/a");
  ASSERT_TRUE(std::holds_alternative<CreateTxn>(last_txn.body));
  EXPECT_EQ(std::get<CreateTxn>(last_txn.body).parent_cversion, 1);
  create("/t/b");
  EXPECT_EQ(std::get<CreateTxn>(last_txn.body).parent_cversion, 2);
  EXPECT_FALSE(std::get<CreateTxn>(last_txn.body).ephemeral);
}

TEST_F(TreeTest, EphemeralIsOwnedByItsSession) {
  create("/e", std::string(), 1);
  EXPECT_EQ(stat("/e"), fresh_stat(2, 0, kSession));
  EXPECT_EQ(db.ephemerals(kSession), std::vector<std::string>{"/e"});
  EXPECT_EQ(db.counts().ephemerals, 1);
  EXPECT_TRUE(std::get<CreateTxn>(last_txn.body).ephemeral);
}

TEST_F(TreeTest, NullAndEmptyDataStayDistinct) {
  create("/null", std::nullopt);
  create("/empty", std::string());
  EXPECT_EQ(data("/null"), std::nullopt);
  EXPECT_EQ(data("/empty"), std::optional<std::string>(""));
  EXPECT_EQ(stat("/null").data_length, 0);
  EXPECT_EQ(stat("/empty").data_length, 0);
}

TEST_F(TreeTest, AclIsStoredAsGivenWithoutDuplicates) {
  zk::wire::ACLs acl{{zk::wire::perms::kRead, {"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="}},
                     {zk::wire::perms::kAll, {"world", "anyone"}},
                     {zk::wire::perms::kRead, {"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="}}};
  ASSERT_EQ(create("/a", std::string(), 0, kSession, OpCode::kCreate, acl).response.err,
            Error::kOk);
  Response r = read(OpCode::kGetACL, "/a");
  zk::wire::ACLs expected(acl.begin(), acl.begin() + 2);
  EXPECT_EQ(decode_as<zk::wire::GetACLResponse>(r.body).acl, expected);
}

TEST_F(TreeTest, ContainerFlagWithPlainCreateMakesPersistentNode) {
  ApplyResult r = create("/c", std::string(), 4);
  ASSERT_EQ(r.response.err, Error::kOk);
  EXPECT_EQ(decode_as<zk::wire::PathRecord>(r.response.body).path, "/c");
  EXPECT_EQ(stat("/c"), fresh_stat(2));
  EXPECT_FALSE(std::get<CreateTxn>(last_txn.body).ephemeral);
}

// As Apache 3.8.0 answers with extended types off (its default), checked live.
TEST_F(TreeTest, TtlFlagsAreUnimplementedAndUnknownFlagsAreBadArguments) {
  for (OpCode op : {OpCode::kCreate, OpCode::kCreate2}) {
    for (int32_t flags : {5, 6}) {
      EXPECT_EQ(create("/f", std::string(), flags, kSession, op).response.err,
                Error::kUnimplemented)
          << flags;
    }
    for (int32_t flags : {7, -1, 100}) {
      EXPECT_EQ(create("/f", std::string(), flags, kSession, op).response.err, Error::kBadArguments)
          << flags;
    }
  }
  EXPECT_FALSE(exists("/f"));
}

// createContainer (19) and createTTL (21): container_test.cc.

// --- §6.3 validation order: each case breaks two rules and expects the earlier one.

TEST_F(TreeTest, UndecodableBodyIsMarshallingError) {
  ApplyResult r = write(OpCode::kCreate, std::string("\x00\x00\x00\x05/a", 6), kSession);
  EXPECT_EQ(r.response.err, Error::kMarshallingError);
  EXPECT_EQ(std::get<ErrorTxn>(last_txn.body).err, Error::kMarshallingError);
}

TEST_F(TreeTest, BadFlagsComeBeforeUnknownSession) {
  EXPECT_EQ(create("/a", std::string(), 7, kOther).response.err, Error::kBadArguments);
}

TEST_F(TreeTest, UnknownSessionComesBeforePathChecks) {
  EXPECT_EQ(create("noslash", std::string(), 0, kOther).response.err, Error::kSessionExpired);
}

TEST_F(TreeTest, PathWithoutSlashOrWithNulComesBeforeAcl) {
  EXPECT_EQ(create("noslash", std::string(), 0, kSession, OpCode::kCreate, {}).response.err,
            Error::kBadArguments);
  EXPECT_EQ(
      create(std::string("/a\0b", 4), std::string(), 0, kSession, OpCode::kCreate, {}).response.err,
      Error::kBadArguments);
}

TEST_F(TreeTest, EmptyAclComesBeforeMissingParent) {
  EXPECT_EQ(create("/missing/a", std::string(), 0, kSession, OpCode::kCreate, {}).response.err,
            Error::kInvalidACL);
  zk::wire::ACLs nobody{{zk::wire::perms::kAll, {"world", "nobody"}}};
  EXPECT_EQ(create("/a", std::string(), 0, kSession, OpCode::kCreate, nobody).response.err,
            Error::kInvalidACL);
}

TEST_F(TreeTest, MissingParentComesBeforeFinalPathRules) {
  create("/t");
  EXPECT_EQ(create("/t//a").response.err, Error::kNoNode);  // §6.3 note
  EXPECT_EQ(create("/missing/a/").response.err, Error::kNoNode);
  EXPECT_EQ(create("a/b").response.err, Error::kNoNode);
}

TEST_F(TreeTest, FinalPathRulesGiveBadArguments) {
  create("/t");
  EXPECT_EQ(create("/t/").response.err, Error::kBadArguments);
  EXPECT_EQ(create("/t/.").response.err, Error::kBadArguments);
  EXPECT_EQ(create("/t/\x01").response.err, Error::kBadArguments);
  EXPECT_EQ(create("/t/\xf0\x9f\x98\x80").response.err, Error::kBadArguments);  // emoji
  EXPECT_EQ(children("/t"), std::vector<std::string>{});
}

TEST_F(TreeTest, ExistingNodeIsNodeExists) {
  create("/a");
  EXPECT_EQ(create("/a").response.err, Error::kNodeExists);
  EXPECT_EQ(create("/").response.err, Error::kNodeExists);
  EXPECT_EQ(create("/zookeeper").response.err, Error::kNodeExists);
}

TEST_F(TreeTest, EphemeralParentRefusesChildren) {
  create("/e", std::string(), 1);
  EXPECT_EQ(create("/e/c").response.err, Error::kNoChildrenForEphemerals);
  EXPECT_EQ(create("/e/c", std::string(), 3).response.err, Error::kNoChildrenForEphemerals);
  EXPECT_EQ(stat("/e").num_children, 0);
}

TEST_F(TreeTest, ZookeeperNodeAcceptsChildren) {
  EXPECT_EQ(create("/zookeeper/x").response.err, Error::kOk);
  EXPECT_EQ(stat("/zookeeper").cversion, -1);  // stored 1, three children
}

TEST_F(TreeTest, FailedCreateConsumesItsZxidAndChangesNothing) {
  create("/a");  // zxid 2
  ApplyResult r = create("/a");
  EXPECT_EQ(r.response.zxid, 3);
  EXPECT_TRUE(r.response.body.empty());
  EXPECT_TRUE(r.notifications.empty());
  EXPECT_EQ(last_txn.header.type, OpCode::kError);
  EXPECT_EQ(last_txn.header.zxid, 3);
  EXPECT_EQ(db.last_zxid(), 3);
  EXPECT_EQ(stat("/a"), fresh_stat(2));
  EXPECT_EQ(stat("/").pzxid, 2);
  create("/b");
  EXPECT_EQ(stat("/b").czxid, 4);
}

TEST_F(TreeTest, ReplayedCreateIsNodeExistsAndLeavesNodeAlone) {
  create("/a", std::string("1"));
  Txn txn = last_txn;
  Stat before = stat("/a");
  ApplyResult again = db.apply(txn);
  EXPECT_EQ(again.response.err, Error::kNodeExists);
  EXPECT_TRUE(again.notifications.empty());
  EXPECT_EQ(stat("/a"), before);
}

}  // namespace
}  // namespace zkd::tree::testing
