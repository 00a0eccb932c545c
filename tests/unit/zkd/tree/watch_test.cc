// SPDX-License-Identifier: Apache-2.0
// The trigger matrix of docs/wire-protocol.md §9.3: which change fires what, to
// whom, in what order.
#include "tree_fixture.h"

namespace zkd::tree::testing {
namespace {

using V = std::vector<std::string>;

TEST_F(TreeTest, CreateFiresNodeCreatedThenChildrenChangedOnParent) {
  create("/p");
  read(OpCode::kExists, "/p/c", true, 1);      // data table of /p/c
  read(OpCode::kGetChildren, "/p", true, 2);   // child table of /p
  read(OpCode::kGetChildren2, "/p", true, 3);  // child table of /p
  ApplyResult r = create("/p/c");
  EXPECT_EQ(events(r.notifications),
            (V{"1:NodeCreated:/p/c", "2:NodeChildrenChanged:/p", "3:NodeChildrenChanged:/p"}));
}

TEST_F(TreeTest, ChildrenChangedUnderRootCarriesSlash) {
  read(OpCode::kGetChildren, "/", true, 4);
  EXPECT_EQ(events(create("/a").notifications), V{"4:NodeChildrenChanged:/"});
  read(OpCode::kGetChildren, "/", true, 4);
  EXPECT_EQ(events(remove("/a").notifications), V{"4:NodeChildrenChanged:/"});
}

TEST_F(TreeTest, SequentialCreateFiresOnTheActualPath) {
  create("/q");
  read(OpCode::kExists, "/q/n0000000000", true, 1);
  read(OpCode::kExists, "/q/n", true, 2);
  EXPECT_EQ(events(create("/q/n", std::string(), 2).notifications),
            V{"1:NodeCreated:/q/n0000000000"});
}

TEST_F(TreeTest, DeleteFiresNodeDeletedOncePerWatcherThenParentChange) {
  create("/p");
  create("/p/c");
  read(OpCode::kGetData, "/p/c", true, 1);      // data only
  read(OpCode::kGetChildren, "/p/c", true, 2);  // child only
  read(OpCode::kExists, "/p/c", true, 3);       // both tables
  read(OpCode::kGetChildren, "/p/c", true, 3);
  read(OpCode::kGetChildren, "/p", true, 4);
  ApplyResult r = remove("/p/c");
  EXPECT_EQ(events(r.notifications), (V{"1:NodeDeleted:/p/c", "3:NodeDeleted:/p/c",
                                        "2:NodeDeleted:/p/c", "4:NodeChildrenChanged:/p"}));
  EXPECT_EQ(db.counts().data_watches + db.counts().child_watches, 0);
}

TEST_F(TreeTest, SetDataFiresNodeDataChangedToDataWatchersOnly) {
  create("/a");
  read(OpCode::kGetData, "/a", true, 1);
  read(OpCode::kGetChildren, "/a", true, 2);
  EXPECT_EQ(events(set_data("/a", std::string("x")).notifications), V{"1:NodeDataChanged:/a"});
  EXPECT_EQ(db.counts().child_watches, 1);
}

TEST_F(TreeTest, ChildDataChangeDoesNotFireParentChildWatch) {
  create("/p");
  create("/p/c");
  read(OpCode::kGetChildren, "/p", true, 1);
  EXPECT_TRUE(set_data("/p/c", std::string("x")).notifications.empty());
}

// Delivery checks READ in the ACL an event carries: the node's own for its
// events, the parent's for NodeChildrenChanged (results.h).
TEST_F(TreeTest, EventsCarryTheAclDeliveryChecks) {
  const zk::wire::ACLs parent_acl = {{zk::wire::perms::kAll, {"world", "anyone"}}};
  const zk::wire::ACLs child_acl = {{zk::wire::perms::kAll, {"ip", "10.0.0.1"}},
                                    {zk::wire::perms::kCreate, {"world", "anyone"}}};
  create("/p", std::string(), 0, kSession, OpCode::kCreate, parent_acl);
  read(OpCode::kExists, "/p/c", true, 1);
  read(OpCode::kGetChildren, "/p", true, 2);
  ApplyResult created = create("/p/c", std::string(), 0, kSession, OpCode::kCreate, child_acl);
  ASSERT_EQ(created.notifications.size(), 2u);
  EXPECT_EQ(created.notifications[0].acl, child_acl);   // NodeCreated /p/c
  EXPECT_EQ(created.notifications[1].acl, parent_acl);  // NodeChildrenChanged /p
  // exists needs READ on a node that exists: asked by the ip the ACL names.
  ASSERT_EQ(db.read(3, OpCode::kExists, encode(zk::wire::PathWatchRequest{"/p/c", true}),
                    AuthIds({{"ip", "10.0.0.1"}}))
                .err,
            Error::kOk);
  read(OpCode::kGetChildren, "/p", true, 4);
  ApplyResult removed = remove("/p/c");
  ASSERT_EQ(removed.notifications.size(), 2u);
  EXPECT_EQ(removed.notifications[0].acl, child_acl);  // the deleted node's
  EXPECT_EQ(removed.notifications[1].acl, parent_acl);
}

TEST_F(TreeTest, SetAclFiresNothing) {
  create("/a");
  read(OpCode::kGetData, "/a", true, 1);
  read(OpCode::kGetChildren, "/a", true, 1);
  EXPECT_TRUE(set_acl("/a", zk::wire::read_acl_unsafe()).notifications.empty());
  EXPECT_EQ(db.counts().data_watches, 1);
}

TEST_F(TreeTest, WatchesAreOneShot) {
  create("/a");
  read(OpCode::kGetData, "/a", true, 1);
  EXPECT_EQ(set_data("/a", std::string("1")).notifications.size(), 1u);
  EXPECT_TRUE(set_data("/a", std::string("2")).notifications.empty());
  EXPECT_EQ(db.counts().data_watches, 0);
}

TEST_F(TreeTest, GetDataAndExistsOnSamePathGiveOneEvent) {
  create("/w");
  read(OpCode::kGetData, "/w", true, 1);
  read(OpCode::kExists, "/w", true, 1);
  EXPECT_EQ(db.counts().data_watches, 1);
  EXPECT_EQ(events(set_data("/w", std::string("x")).notifications), V{"1:NodeDataChanged:/w"});
}

TEST_F(TreeTest, ExistsWatchOnMissingNodeFiresNodeCreated) {
  read(OpCode::kExists, "/later", true, 1);
  EXPECT_EQ(events(create("/later").notifications), V{"1:NodeCreated:/later"});
}

TEST_F(TreeTest, GetDataOnMissingNodeSetsNoWatch) {
  read(OpCode::kGetData, "/later", true, 1);
  read(OpCode::kGetChildren, "/later", true, 1);
  EXPECT_TRUE(create("/later").notifications.empty());
}

TEST_F(TreeTest, EveryWatcherGetsTheEventInWatcherOrder) {
  create("/a");
  for (WatcherId w : {5u, 2u, 9u}) read(OpCode::kGetData, "/a", true, w);
  EXPECT_EQ(events(set_data("/a", std::string("x")).notifications),
            (V{"2:NodeDataChanged:/a", "5:NodeDataChanged:/a", "9:NodeDataChanged:/a"}));
}

TEST_F(TreeTest, FailedWritesFireNothing) {
  create("/a");
  read(OpCode::kGetData, "/a", true, 1);
  read(OpCode::kExists, "/a/b", true, 1);
  EXPECT_TRUE(set_data("/a", std::string("x"), 7).notifications.empty());
  EXPECT_TRUE(create("/a").notifications.empty());
  EXPECT_TRUE(remove("/a", 3).notifications.empty());
  EXPECT_EQ(db.counts().data_watches, 2);
}

TEST_F(TreeTest, RemovedWatcherGetsNothing) {
  create("/a");
  read(OpCode::kGetData, "/a", true, 1);
  read(OpCode::kGetChildren, "/a", true, 1);
  read(OpCode::kGetData, "/a", true, 2);
  db.remove_watcher(1);
  EXPECT_EQ(events(remove("/a").notifications), V{"2:NodeDeleted:/a"});
}

TEST_F(TreeTest, WatchReportsCountOnlyDataTableForWchs) {
  create("/a");
  create("/b");
  read(OpCode::kGetData, "/a", true, 1);
  read(OpCode::kExists, "/b", true, 1);
  read(OpCode::kExists, "/b", true, 2);
  read(OpCode::kGetChildren, "/a", true, 3);
  Counts c = db.counts();
  EXPECT_EQ(c.data_watches, 3);
  EXPECT_EQ(c.child_watches, 1);
  EXPECT_EQ(c.watched_paths, 2);
  EXPECT_EQ(c.watching_connections, 2);
  EXPECT_EQ(db.watched_paths(1), (V{"/a", "/b"}));
  EXPECT_EQ(db.watched_paths(3), V{});
  auto by_path = db.watchers_by_path();
  ASSERT_EQ(by_path.size(), 2u);
  EXPECT_EQ(by_path[0].first, "/a");
  EXPECT_EQ(by_path[0].second, std::vector<WatcherId>{1});
  EXPECT_EQ(by_path[1].first, "/b");
  EXPECT_EQ(by_path[1].second, (std::vector<WatcherId>{1, 2}));
}

}  // namespace
}  // namespace zkd::tree::testing
