// SPDX-License-Identifier: Apache-2.0
// zk::client's multi (14) and multiRead (22) against a real server (Apache
// ZooKeeper 3.8 or zkd, see test_server.h): results per operation, the
// all-or-nothing rule and its error convention (docs/wire-protocol.md §7.2), the chroot,
// and paths refused before sending.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "libzk/client/sync_client.h"
#include "libzk/wire/multi.h"
#include "tests/unit/libzk/client/server_fixture.h"

namespace zk::client {
namespace {

using zk::wire::CreateMode;
using zk::wire::MultiOp;
using zk::wire::MultiResult;
using zk::wire::OpCode;

using ClientMultiTest = testing::ServerTest;

TEST_F(ClientMultiTest, MultiAppliesEveryOperationAtOneZxid) {
  ASSERT_TRUE(admin_->create(p("gone"), std::nullopt).ok());
  auto r = admin_->multi({
      zk::wire::multi_create(p("a"), std::string("x")),
      zk::wire::multi_set_data(p("a"), std::string("y"), 0),
      zk::wire::multi_check(p("a"), 1),
      zk::wire::multi_remove(p("gone"), 0),
  });
  ASSERT_TRUE(r.ok()) << zk::wire::error_name(r.error());
  ASSERT_EQ(r->size(), 4u);
  const std::vector<MultiResult>& results = *r;
  EXPECT_EQ(results[0].type, OpCode::kCreate);
  EXPECT_EQ(results[0].path, p("a"));
  EXPECT_EQ(results[1].type, OpCode::kSetData);
  EXPECT_EQ(results[2].type, OpCode::kCheck);
  EXPECT_EQ(results[3].type, OpCode::kDelete);
  for (const MultiResult& result : results) EXPECT_EQ(result.err, Error::kOk);

  // The setData saw the create; both (and the delete) carry the one zxid.
  const zk::wire::Stat& set = results[1].stat;
  EXPECT_EQ(set.version, 1);
  EXPECT_EQ(set.data_length, 1);
  EXPECT_NE(set.mzxid, 0);
  EXPECT_EQ(set.czxid, set.mzxid);
  auto a = admin_->get_data(p("a"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->data, std::string("y"));
  EXPECT_EQ(a->stat, set);
  EXPECT_FALSE(admin_->exists(p("gone"))->has_value());
  auto root = admin_->exists(root_);
  ASSERT_TRUE(root.ok() && root->has_value());
  EXPECT_EQ((*root)->pzxid, set.mzxid);  // the create and the delete of a child
  EXPECT_EQ((*root)->num_children, 1);
}

TEST_F(ClientMultiTest, FailedMultiAppliesNothing) {
  ASSERT_TRUE(admin_->create(p("n"), std::string("0")).ok());
  auto r = admin_->multi({
      zk::wire::multi_create(p("b"), std::nullopt),
      zk::wire::multi_check(p("n"), 5),  // the version is 0
      zk::wire::multi_set_data(p("n"), std::string("z")),
  });
  // The request succeeded; the transaction did not.
  ASSERT_TRUE(r.ok()) << zk::wire::error_name(r.error());
  ASSERT_EQ(r->size(), 3u);
  for (const MultiResult& result : *r) EXPECT_EQ(result.type, OpCode::kError);
  EXPECT_EQ((*r)[0].err, Error::kOk);
  EXPECT_EQ((*r)[1].err, Error::kBadVersion);
  EXPECT_EQ((*r)[2].err, Error::kRuntimeInconsistency);

  EXPECT_FALSE(admin_->exists(p("b"))->has_value());
  auto n = admin_->get_data(p("n"));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->data, std::string("0"));
  EXPECT_EQ(n->stat.version, 0);
}

TEST_F(ClientMultiTest, EmptyMultiAndMultiReadSucceed) {
  auto multi = admin_->multi({});
  ASSERT_TRUE(multi.ok()) << zk::wire::error_name(multi.error());
  EXPECT_TRUE(multi->empty());
  auto read = admin_->multi_read({});
  ASSERT_TRUE(read.ok()) << zk::wire::error_name(read.error());
  EXPECT_TRUE(read->empty());
}

TEST_F(ClientMultiTest, MultiReadAnswersEachOperationOnItsOwn) {
  ASSERT_TRUE(admin_->create(p("a"), std::string("x")).ok());
  ASSERT_TRUE(admin_->create(p("a/c1"), std::nullopt).ok());
  ASSERT_TRUE(admin_->create(p("a/c2"), std::nullopt).ok());
  auto r = admin_->multi_read({
      zk::wire::multi_get_data(p("a")),
      zk::wire::multi_get_data(p("missing")),
      zk::wire::multi_get_children(p("a")),
  });
  ASSERT_TRUE(r.ok()) << zk::wire::error_name(r.error());
  ASSERT_EQ(r->size(), 3u);
  std::vector<MultiResult>& results = *r;

  EXPECT_EQ(results[0].type, OpCode::kGetData);
  EXPECT_EQ(results[0].err, Error::kOk);
  EXPECT_EQ(results[0].data, std::string("x"));
  EXPECT_EQ(results[0].stat, admin_->exists(p("a"))->value());

  EXPECT_EQ(results[1].type, OpCode::kError);
  EXPECT_EQ(results[1].err, Error::kNoNode);

  EXPECT_EQ(results[2].type, OpCode::kGetChildren);
  EXPECT_EQ(results[2].err, Error::kOk);
  std::sort(results[2].children.begin(), results[2].children.end());
  EXPECT_EQ(results[2].children, (std::vector<std::string>{"c1", "c2"}));
}

TEST_F(ClientMultiTest, ChrootIsPrefixedAndStripped) {
  auto rooted = connect(root_);
  MultiOp create2{OpCode::kCreate2,
                  zk::wire::CreateRequest{"/y", std::string("3"), zk::wire::open_acl_unsafe(), 0}};
  auto r = rooted->multi({
      zk::wire::multi_create("/x", std::string("1")),
      zk::wire::multi_create("/s-", std::nullopt, CreateMode::kPersistentSequential), create2,
      zk::wire::multi_set_data("/x", std::string("2"), 0),
      zk::wire::multi_check("/", 0),  // the chroot itself
  });
  ASSERT_TRUE(r.ok()) << zk::wire::error_name(r.error());
  ASSERT_EQ(r->size(), 5u);
  for (const MultiResult& result : *r) {
    EXPECT_NE(result.type, OpCode::kError) << zk::wire::error_name(result.err);
  }
  EXPECT_EQ((*r)[0].path, "/x");
  EXPECT_EQ((*r)[1].path, "/s-0000000001");  // the multi created /x first
  // Apache 3.8.0-3.8.3 answer a create2 as a create (path only).
  EXPECT_TRUE((*r)[2].type == OpCode::kCreate || (*r)[2].type == OpCode::kCreate2);
  EXPECT_EQ((*r)[2].path, "/y");

  EXPECT_EQ(admin_->get_data(p("x"))->data, std::string("2"));
  EXPECT_TRUE(admin_->exists(p("s-0000000001"))->has_value());
  EXPECT_TRUE(admin_->exists(p("y"))->has_value());

  auto read =
      rooted->multi_read({zk::wire::multi_get_data("/x"), zk::wire::multi_get_children("/")});
  ASSERT_TRUE(read.ok()) << zk::wire::error_name(read.error());
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[0].data, std::string("2"));
  std::vector<std::string> children = (*read)[1].children;
  std::sort(children.begin(), children.end());
  EXPECT_EQ(children, (std::vector<std::string>{"s-0000000001", "x", "y"}));
}

TEST_F(ClientMultiTest, InvalidPathFailsWithoutSending) {
  // Every multi the server sees consumes a zxid, even a failed one (§7.1,
  // §7.2): the next write's zxid shows whether one was sent.
  auto before = admin_->create2(p("before"), std::nullopt);
  ASSERT_TRUE(before.ok());
  const std::vector<std::vector<MultiOp>> invalid = {
      {zk::wire::multi_create(p("ok"), std::nullopt), zk::wire::multi_set_data(p("a//b"), {})},
      {zk::wire::multi_create(p("trailing/"), std::nullopt)},
      {zk::wire::multi_remove("")},
      {zk::wire::multi_check("no-slash", 0)},
  };
  for (const auto& ops : invalid) EXPECT_EQ(admin_->multi(ops).error(), Error::kBadArguments);
  EXPECT_EQ(admin_->multi_read({zk::wire::multi_get_data(p("x/.."))}).error(),
            Error::kBadArguments);
  EXPECT_EQ(admin_->multi_read({zk::wire::multi_get_children(p("."))}).error(),
            Error::kBadArguments);
  auto after = admin_->create2(p("after"), std::nullopt);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->stat.czxid, before->stat.czxid + 1);
  EXPECT_FALSE(admin_->exists(p("ok"))->has_value());

  // A trailing '/' is valid for a sequential create: the name is the counter.
  auto r = admin_->multi({
      zk::wire::multi_create(p("dir"), std::nullopt),
      zk::wire::multi_create(p("dir/"), std::nullopt, CreateMode::kPersistentSequential),
  });
  ASSERT_TRUE(r.ok()) << zk::wire::error_name(r.error());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1].type, OpCode::kCreate);
  EXPECT_EQ((*r)[1].path, p("dir/0000000000"));
}

}  // namespace
}  // namespace zk::client
