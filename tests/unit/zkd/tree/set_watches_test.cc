// SPDX-License-Identifier: Apache-2.0
// setWatches catch-up after a reconnect (docs/wire-protocol.md §9.5).
#include "tree_fixture.h"

namespace zkd::tree::testing {
namespace {

using V = std::vector<std::string>;

zk::wire::SetWatches watches(int64_t relative_zxid, V data, V exist, V child) {
  zk::wire::SetWatches w;
  w.relative_zxid = relative_zxid;
  w.data_watches = std::move(data);
  w.exist_watches = std::move(exist);
  w.child_watches = std::move(child);
  return w;
}

TEST_F(TreeTest, DataWatchCatchUp) {
  create("/same");     // 2
  create("/changed");  // 3
  int64_t seen = db.last_zxid();
  set_data("/changed", std::string("x"));  // 4
  auto out = db.set_watches(7, watches(seen, {"/gone", "/changed", "/same"}, {}, {}));
  EXPECT_EQ(events(out), (V{"7:NodeDeleted:/gone", "7:NodeDataChanged:/changed"}));
  EXPECT_EQ(db.watched_paths(7), V{"/same"});
  EXPECT_EQ(events(set_data("/same", std::string("y")).notifications),
            V{"7:NodeDataChanged:/same"});
}

TEST_F(TreeTest, DataWatchIgnoresChildChanges) {
  create("/p");  // 2
  int64_t seen = db.last_zxid();
  create("/p/c");  // pzxid moves, mzxid does not
  EXPECT_TRUE(db.set_watches(7, watches(seen, {"/p"}, {}, {})).empty());
  EXPECT_EQ(db.counts().data_watches, 1);
}

TEST_F(TreeTest, ExistWatchCatchUp) {
  create("/there");
  auto out = db.set_watches(7, watches(db.last_zxid(), {}, {"/there", "/absent"}, {}));
  EXPECT_EQ(events(out), V{"7:NodeCreated:/there"});
  EXPECT_EQ(db.watched_paths(7), V{"/absent"});
  EXPECT_EQ(events(create("/absent").notifications), V{"7:NodeCreated:/absent"});
}

TEST_F(TreeTest, ChildWatchCatchUp) {
  create("/same");     // 2
  create("/changed");  // 3
  int64_t seen = db.last_zxid();
  create("/changed/c");                    // pzxid of /changed moves
  set_data("/same", std::string("data"));  // mzxid only
  auto out = db.set_watches(7, watches(seen, {}, {}, {"/gone", "/changed", "/same"}));
  EXPECT_EQ(events(out), (V{"7:NodeDeleted:/gone", "7:NodeChildrenChanged:/changed"}));
  EXPECT_EQ(db.counts().child_watches, 1);
  EXPECT_EQ(events(create("/same/c").notifications), V{"7:NodeChildrenChanged:/same"});
}

TEST_F(TreeTest, PathInTwoListsFiresOncePerList) {
  auto out = db.set_watches(7, watches(0, {"/sw/d"}, {}, {"/sw/d"}));
  EXPECT_EQ(events(out), (V{"7:NodeDeleted:/sw/d", "7:NodeDeleted:/sw/d"}));
}

TEST_F(TreeTest, CatchUpFollowsListOrderDataExistChild) {
  create("/e");  // 2
  create("/d");  // 3
  create("/c");  // 4
  set_data("/d", std::string("x"));
  create("/c/x");
  auto out = db.set_watches(7, watches(4, {"/d"}, {"/e"}, {"/c"}));
  EXPECT_EQ(events(out),
            (V{"7:NodeDataChanged:/d", "7:NodeCreated:/e", "7:NodeChildrenChanged:/c"}));
}

}  // namespace
}  // namespace zkd::tree::testing
