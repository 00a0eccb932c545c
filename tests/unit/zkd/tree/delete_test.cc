// SPDX-License-Identifier: Apache-2.0
// delete (2): Stat effects on the parent and Apache's validation order
// (docs/wire-protocol.md §11.1: delete's own path rules, version before
// emptiness).
#include "tree_fixture.h"

namespace zkd::tree::testing {
namespace {

using zk::wire::Stat;

TEST_F(TreeTest, DeleteRemovesNodeAndUpdatesParent) {
  create("/p", std::string("d"));  // 2
  create("/p/a");                  // 3
  create("/p/b");                  // 4
  ApplyResult r = remove("/p/a");  // 5
  ASSERT_EQ(r.response.err, Error::kOk);
  EXPECT_EQ(r.response.zxid, 5);
  EXPECT_TRUE(r.response.body.empty());
  EXPECT_FALSE(exists("/p/a"));
  Stat p = fresh_stat(2, 1);
  p.cversion = 3;  // two creates + one delete
  p.num_children = 1;
  p.pzxid = 5;
  EXPECT_EQ(stat("/p"), p);
  EXPECT_EQ(children("/p"), std::vector<std::string>{"b"});
  EXPECT_EQ(std::get<DeleteTxn>(last_txn.body).path, "/p/a");
  EXPECT_EQ(last_txn.header.type, OpCode::kDelete);
}

TEST_F(TreeTest, DeleteWithMatchingVersion) {
  create("/a");
  set_data("/a", std::string("x"));
  EXPECT_EQ(remove("/a", 0).response.err, Error::kBadVersion);
  EXPECT_EQ(remove("/a", 1).response.err, Error::kOk);
}

TEST_F(TreeTest, SpecialPathsCannotBeDeleted) {
  for (const char* path : {"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"}) {
    EXPECT_EQ(remove(path).response.err, Error::kBadArguments) << path;
    EXPECT_TRUE(exists(path));
  }
}

TEST_F(TreeTest, DeletePathWithoutSlashOrWithNulIsBadArguments) {
  EXPECT_EQ(remove("abc").response.err, Error::kBadArguments);
  EXPECT_EQ(remove("").response.err, Error::kBadArguments);
  EXPECT_EQ(remove(std::string("/a\0", 3)).response.err, Error::kBadArguments);
}

TEST_F(TreeTest, DeleteAppliesNoOtherPathRules) {
  create("/a");
  // Invalid by the full rules, but delete only looks them up.
  EXPECT_EQ(remove("/a/").response.err, Error::kNoNode);
  EXPECT_EQ(remove("/a/.").response.err, Error::kNoNode);
  EXPECT_EQ(remove("/zookeeper/").response.err, Error::kNoNode);
}

TEST_F(TreeTest, DeleteMissingParentOrNodeIsNoNode) {
  EXPECT_EQ(remove("/missing/x").response.err, Error::kNoNode);
  EXPECT_EQ(remove("/x").response.err, Error::kNoNode);
  EXPECT_EQ(remove("a/b").response.err, Error::kNoNode);
}

TEST_F(TreeTest, DeleteChecksVersionBeforeEmptiness) {
  create("/p");
  create("/p/c");
  EXPECT_EQ(remove("/p", 5).response.err, Error::kBadVersion);
  EXPECT_EQ(remove("/p", 0).response.err, Error::kNotEmpty);
  EXPECT_EQ(remove("/p").response.err, Error::kNotEmpty);
  EXPECT_TRUE(exists("/p/c"));
}

TEST_F(TreeTest, DeleteFromUnknownSessionIsSessionExpired) {
  create("/a");
  EXPECT_EQ(remove("/", -1, kOther).response.err, Error::kSessionExpired);
  EXPECT_TRUE(exists("/a"));
}

TEST_F(TreeTest, FailedDeleteConsumesZxidAndLeavesParentAlone) {
  create("/p");    // 2
  create("/p/c");  // 3
  Stat before = stat("/p");
  ApplyResult r = remove("/p");  // 4: NOTEMPTY
  EXPECT_EQ(r.response.zxid, 4);
  EXPECT_EQ(db.last_zxid(), 4);
  EXPECT_EQ(stat("/p"), before);
}

TEST_F(TreeTest, DeleteOfEphemeralForgetsOwnership) {
  create("/e", std::string(), 1);
  remove("/e");
  EXPECT_TRUE(db.ephemerals(kSession).empty());
  EXPECT_EQ(db.counts().ephemerals, 0);
}

}  // namespace
}  // namespace zkd::tree::testing
