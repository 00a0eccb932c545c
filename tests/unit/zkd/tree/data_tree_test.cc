// SPDX-License-Identifier: Apache-2.0
// The fresh tree (§5.1) and the mntr figures (§12.3) of docs/wire-protocol.md.
#include "tree_fixture.h"

namespace zkd::tree::testing {
namespace {

using zk::wire::Stat;

class FreshTree : public TreeTest {
  void SetUp() override {}  // no session: nothing but the system nodes
};

TEST_F(FreshTree, RootStatHasCversionMinusOneAndOneChild) {
  Stat expected;
  expected.cversion = -1;
  expected.num_children = 1;
  EXPECT_EQ(stat("/"), expected);
  EXPECT_EQ(children("/"), std::vector<std::string>{"zookeeper"});
}

TEST_F(FreshTree, ZookeeperNodeHasCversionMinusTwoAndTwoChildren) {
  Stat expected;
  expected.cversion = -2;
  expected.num_children = 2;
  EXPECT_EQ(stat("/zookeeper"), expected);
  EXPECT_EQ(children("/zookeeper"), (std::vector<std::string>{"config", "quota"}));
}

TEST_F(FreshTree, QuotaNodeIsAllZero) { EXPECT_EQ(stat("/zookeeper/quota"), Stat{}); }

TEST_F(FreshTree, ConfigNodeHasAversionMinusOneAndReadOnlyAcl) {
  Stat expected;
  expected.aversion = -1;
  EXPECT_EQ(stat("/zookeeper/config"), expected);
  Response r = read(OpCode::kGetACL, "/zookeeper/config");
  ASSERT_EQ(r.err, Error::kOk);
  auto acl = decode_as<zk::wire::GetACLResponse>(r.body);
  EXPECT_EQ(acl.acl, zk::wire::read_acl_unsafe());
  EXPECT_EQ(acl.stat, expected);
}

TEST_F(FreshTree, SystemNodesHoldEmptyNotNullData) {
  for (const char* path : {"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"}) {
    EXPECT_EQ(data(path), std::optional<std::string>("")) << path;
  }
}

TEST_F(FreshTree, OtherSystemNodesAreWorldAll) {
  for (const char* path : {"/", "/zookeeper", "/zookeeper/quota"}) {
    Response r = read(OpCode::kGetACL, path);
    ASSERT_EQ(r.err, Error::kOk);
    EXPECT_EQ(decode_as<zk::wire::GetACLResponse>(r.body).acl, zk::wire::open_acl_unsafe());
  }
}

TEST_F(FreshTree, CountsMatchApacheFreshServer) {
  Counts c = db.counts();
  EXPECT_EQ(c.znodes, 5);
  EXPECT_EQ(c.approximate_data_size, 44);
  EXPECT_EQ(c.ephemerals, 0);
  EXPECT_EQ(c.data_watches, 0);
  EXPECT_EQ(c.child_watches, 0);
  EXPECT_EQ(c.watched_paths, 0);
  EXPECT_EQ(c.watching_connections, 0);
  EXPECT_EQ(c.sessions, 0);
  EXPECT_EQ(db.last_zxid(), 0);
}

TEST_F(TreeTest, DataSizeFollowsPathAndDataLengths) {
  create("/abc", std::string("12345"));  // 4 + 5
  EXPECT_EQ(db.counts().znodes, 6);
  EXPECT_EQ(db.counts().approximate_data_size, 44 + 9);
  set_data("/abc", std::string("1"));
  EXPECT_EQ(db.counts().approximate_data_size, 44 + 5);
  set_data("/abc", std::nullopt);
  EXPECT_EQ(db.counts().approximate_data_size, 44 + 4);
  remove("/abc");
  EXPECT_EQ(db.counts().znodes, 5);
  EXPECT_EQ(db.counts().approximate_data_size, 44);
}

TEST_F(TreeTest, DataSizeCountsPathCharactersNotBytes) {
  create("/\xc3\xa9", std::string("xy"));  // "/é": 2 UTF-16 units, 3 bytes
  EXPECT_EQ(db.counts().approximate_data_size, 44 + 2 + 2);
}

TEST_F(TreeTest, EmptyStringPathNamesTheRootOnReads) {
  // Apache stores the root under "" too.
  EXPECT_EQ(stat(""), stat("/"));
}

}  // namespace
}  // namespace zkd::tree::testing
