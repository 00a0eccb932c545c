// SPDX-License-Identifier: Apache-2.0
// Reads: replies, invalid paths (docs/wire-protocol.md §11.1, per operation),
// which reads set watches.
#include "tree_fixture.h"

namespace zkd::tree::testing {
namespace {

using zk::wire::Stat;

TEST_F(TreeTest, ReadsCarryTheLastAppliedZxid) {
  create("/a");  // 2
  EXPECT_EQ(read(OpCode::kGetData, "/a").zxid, 2);
  EXPECT_EQ(read(OpCode::kExists, "/missing").zxid, 2);
  EXPECT_EQ(read(OpCode::kSync, "/a").zxid, 2);
}

TEST_F(TreeTest, GetDataReturnsDataAndStat) {
  create("/a", std::string("v"));
  Response r = read(OpCode::kGetData, "/a");
  ASSERT_EQ(r.err, Error::kOk);
  auto reply = decode_as<zk::wire::GetDataResponse>(r.body);
  EXPECT_EQ(reply.data, std::optional<std::string>("v"));
  EXPECT_EQ(reply.stat, fresh_stat(2, 1));
}

TEST_F(TreeTest, GetChildren2ReturnsNamesAndStat) {
  create("/p");
  create("/p/b");
  create("/p/a");
  Response r = read(OpCode::kGetChildren2, "/p");
  ASSERT_EQ(r.err, Error::kOk);
  auto reply = decode_as<zk::wire::GetChildren2Response>(r.body);
  EXPECT_EQ(reply.children, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(reply.stat, stat("/p"));
  EXPECT_EQ(children("/p/a"), std::vector<std::string>{});
}

TEST_F(TreeTest, MissingOrInvalidPathsMissOnReads) {
  for (OpCode op : {OpCode::kGetData, OpCode::kGetChildren, OpCode::kGetChildren2, OpCode::kGetACL,
                    OpCode::kExists}) {
    for (const char* path : {"/missing", "abc", "/a/", "/zookeeper/"}) {
      Response r = read(op, path);
      EXPECT_EQ(r.err, Error::kNoNode) << zk::wire::opcode_name(op) << " " << path;
      EXPECT_TRUE(r.body.empty());
    }
  }
}

TEST_F(TreeTest, NulInExistsPathIsBadArgumentsAndSetsNoWatch) {
  Response r = read(OpCode::kExists, std::string("/a\0", 3), true);
  EXPECT_EQ(r.err, Error::kBadArguments);
  EXPECT_EQ(db.counts().data_watches, 0);
  // Other reads just miss.
  EXPECT_EQ(read(OpCode::kGetData, std::string("/a\0", 3)).err, Error::kNoNode);
}

TEST_F(TreeTest, SyncEchoesPathEvenWhenMissing) {
  Response r = read(OpCode::kSync, "/nowhere");
  ASSERT_EQ(r.err, Error::kOk);
  EXPECT_EQ(decode_as<zk::wire::PathRecord>(r.body).path, "/nowhere");
}

TEST_F(TreeTest, UndecodableReadIsMarshallingError) {
  for (OpCode op : {OpCode::kExists, OpCode::kGetData, OpCode::kGetChildren, OpCode::kGetChildren2,
                    OpCode::kGetACL, OpCode::kSync}) {
    Response r = db.read(1, op, std::string("\x00\x00\x00\x09/", 5));
    EXPECT_EQ(r.err, Error::kMarshallingError) << zk::wire::opcode_name(op);
  }
}

TEST_F(TreeTest, ExistsOnMissingNodeSetsWatchButGetDataDoesNot) {
  read(OpCode::kExists, "/x", true, 1);
  read(OpCode::kGetData, "/y", true, 1);
  read(OpCode::kGetChildren, "/y", true, 1);
  read(OpCode::kGetChildren2, "/y", true, 1);
  Counts c = db.counts();
  EXPECT_EQ(c.data_watches, 1);
  EXPECT_EQ(c.child_watches, 0);
  EXPECT_EQ(db.watched_paths(1), std::vector<std::string>{"/x"});
}

TEST_F(TreeTest, ReadsWithoutWatchFlagSetNoWatch) {
  create("/a");
  read(OpCode::kExists, "/a", false, 1);
  read(OpCode::kGetData, "/a", false, 1);
  read(OpCode::kGetChildren, "/a", false, 1);
  EXPECT_EQ(db.counts().data_watches + db.counts().child_watches, 0);
}

TEST_F(TreeTest, GetAllChildrenNumberCountsDescendants) {
  create("/a");
  create("/a/b");
  create("/a/b/c");
  create("/ab");
  Response r = read(OpCode::kGetAllChildrenNumber, "/a");
  ASSERT_EQ(r.err, Error::kOk);
  zk::wire::Reader body(r.body);
  EXPECT_EQ(body.int32(), 2);
  // "/" counts every node but itself, /zookeeper's subtree included (§4.3).
  std::string all_body = read(OpCode::kGetAllChildrenNumber, "/").body;
  zk::wire::Reader all(all_body);
  EXPECT_EQ(all.int32(), 3 + 4);
  EXPECT_EQ(read(OpCode::kGetAllChildrenNumber, "/missing").err, Error::kNoNode);
}

TEST_F(TreeTest, UnknownReadOpcodeIsUnimplemented) {
  EXPECT_EQ(db.read(1, OpCode::kWhoAmI, "").err, Error::kUnimplemented);
}

}  // namespace
}  // namespace zkd::tree::testing
