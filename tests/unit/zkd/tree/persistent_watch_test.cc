// SPDX-License-Identifier: Apache-2.0
// Persistent and persistent-recursive watches (docs/wire-protocol.md §9.4),
// removeWatches and
// checkWatches, and their re-registration by setWatches2 (§9.5), driven
// through Database::read as the server drives them.
#include "tree_fixture.h"

namespace zkd::tree::testing {
namespace {

using V = std::vector<std::string>;
using zk::wire::AddWatchMode;
using zk::wire::WatcherType;

class PersistentWatchTest : public TreeTest {
 protected:
  Response add_watch(const std::string& path, AddWatchMode mode, WatcherId w = 1) {
    return db.read(w, OpCode::kAddWatch,
                   encode(zk::wire::AddWatchRequest{path, static_cast<int32_t>(mode)}));
  }
  Error check(const std::string& path, WatcherType type, WatcherId w = 1) {
    return db
        .read(w, OpCode::kCheckWatches,
              encode(zk::wire::WatchesRequest{path, static_cast<int32_t>(type)}))
        .err;
  }
  Error remove_watches(const std::string& path, WatcherType type, WatcherId w = 1) {
    return db
        .read(w, OpCode::kRemoveWatches,
              encode(zk::wire::WatchesRequest{path, static_cast<int32_t>(type)}))
        .err;
  }
};

TEST_F(PersistentWatchTest, AddWatchRepliesWithErrorResponseZero) {
  Response r = add_watch("/p", AddWatchMode::kPersistent);
  EXPECT_EQ(r.err, Error::kOk);
  EXPECT_EQ(r.body, std::string(4, '\0'));
}

TEST_F(PersistentWatchTest, UnknownModeOrTypeIsMarshallingError) {
  EXPECT_EQ(db.read(1, OpCode::kAddWatch, encode(zk::wire::AddWatchRequest{"/p", 2})).err,
            Error::kMarshallingError);
  EXPECT_EQ(db.read(1, OpCode::kRemoveWatches, encode(zk::wire::WatchesRequest{"/p", 4})).err,
            Error::kMarshallingError);
  EXPECT_EQ(db.read(1, OpCode::kCheckWatches, encode(zk::wire::WatchesRequest{"/p", 0})).err,
            Error::kMarshallingError);
}

TEST_F(PersistentWatchTest, PersistentFiresDataAndChildEventsOnItsPathAndStays) {
  add_watch("/p", AddWatchMode::kPersistent);
  EXPECT_EQ(events(create("/p").notifications), V{"1:NodeCreated:/p"});
  EXPECT_EQ(events(set_data("/p", std::string("x")).notifications), V{"1:NodeDataChanged:/p"});
  EXPECT_EQ(events(set_data("/p", std::string("y")).notifications), V{"1:NodeDataChanged:/p"});
  EXPECT_EQ(events(create("/p/c").notifications), V{"1:NodeChildrenChanged:/p"});
  EXPECT_TRUE(set_data("/p/c", std::string("x")).notifications.empty());  // not recursive
  EXPECT_EQ(events(remove("/p/c").notifications), V{"1:NodeChildrenChanged:/p"});
  EXPECT_EQ(events(remove("/p").notifications), V{"1:NodeDeleted:/p"});
  EXPECT_EQ(events(create("/p").notifications), V{"1:NodeCreated:/p"});  // survives the delete
}

TEST_F(PersistentWatchTest, RecursiveFiresForPathAndDescendantsButNeverChildrenChanged) {
  create("/r");
  add_watch("/r", AddWatchMode::kPersistentRecursive);
  EXPECT_EQ(events(create("/r/a").notifications), V{"1:NodeCreated:/r/a"});
  EXPECT_EQ(events(create("/r/a/b").notifications), V{"1:NodeCreated:/r/a/b"});
  EXPECT_EQ(events(set_data("/r/a/b", std::string("x")).notifications),
            V{"1:NodeDataChanged:/r/a/b"});
  EXPECT_EQ(events(set_data("/r", std::string("x")).notifications), V{"1:NodeDataChanged:/r"});
  EXPECT_EQ(events(remove("/r/a/b").notifications), V{"1:NodeDeleted:/r/a/b"});
  EXPECT_TRUE(create("/rx").notifications.empty());  // a sibling with a common prefix
  EXPECT_TRUE(create("/other").notifications.empty());
}

TEST_F(PersistentWatchTest, RecursiveOnRootSeesEverything) {
  add_watch("/", AddWatchMode::kPersistentRecursive, 3);
  EXPECT_EQ(events(create("/a").notifications), V{"3:NodeCreated:/a"});
  EXPECT_EQ(events(create("/a/b").notifications), V{"3:NodeCreated:/a/b"});
}

TEST_F(PersistentWatchTest, OneEventPerWatcherWhenSeveralWatchesMatch) {
  create("/a");
  create("/a/b");
  add_watch("/a", AddWatchMode::kPersistentRecursive);
  add_watch("/a/b", AddWatchMode::kPersistentRecursive);
  add_watch("/a/b", AddWatchMode::kPersistent);
  read(OpCode::kGetData, "/a/b", true, 1);
  read(OpCode::kGetChildren, "/a/b", true, 1);
  read(OpCode::kGetData, "/a/b", true, 2);
  EXPECT_EQ(events(set_data("/a/b", std::string("x")).notifications),
            (V{"1:NodeDataChanged:/a/b", "2:NodeDataChanged:/a/b"}));
  EXPECT_EQ(events(remove("/a/b").notifications), V{"1:NodeDeleted:/a/b"});
}

TEST_F(PersistentWatchTest, OneShotWatchOnTheSamePathFiresOnceAndPersistentStays) {
  create("/a");
  add_watch("/a", AddWatchMode::kPersistent);
  read(OpCode::kGetData, "/a", true, 1);  // Apache 3.8 would make /a one-shot here
  EXPECT_EQ(events(set_data("/a", std::string("1")).notifications), V{"1:NodeDataChanged:/a"});
  EXPECT_EQ(check("/a", WatcherType::kData), Error::kNoWatcher);  // the one-shot one fired
  EXPECT_EQ(events(set_data("/a", std::string("2")).notifications), V{"1:NodeDataChanged:/a"});
}

TEST_F(PersistentWatchTest, EventsCarryTheNodeAndParentAcl) {
  const zk::wire::ACLs acl = {{zk::wire::perms::kAll, {"ip", "10.0.0.1"}}};
  add_watch("/p", AddWatchMode::kPersistentRecursive);
  add_watch("/p", AddWatchMode::kPersistent, 2);
  create("/p");
  ApplyResult r = create("/p/c", std::string(), 0, kSession, OpCode::kCreate, acl);
  ASSERT_EQ(events(r.notifications), (V{"1:NodeCreated:/p/c", "2:NodeChildrenChanged:/p"}));
  EXPECT_EQ(r.notifications[0].acl, acl);
  EXPECT_EQ(r.notifications[1].acl, zk::wire::open_acl_unsafe());
  // A recursive watch on an ancestor keeps the deleted node's ACL for delivery.
  ApplyResult removed = remove("/p/c");
  ASSERT_EQ(events(removed.notifications), (V{"1:NodeDeleted:/p/c", "2:NodeChildrenChanged:/p"}));
  EXPECT_EQ(removed.notifications[0].acl, acl);
}

TEST_F(PersistentWatchTest, CheckAndRemoveByType) {
  create("/a");
  add_watch("/a", AddWatchMode::kPersistent);
  // Children and Data name the one-shot watches only; Any covers persistent ones.
  EXPECT_EQ(check("/a", WatcherType::kData), Error::kNoWatcher);
  EXPECT_EQ(check("/a", WatcherType::kChildren), Error::kNoWatcher);
  EXPECT_EQ(check("/a", WatcherType::kAny), Error::kOk);
  EXPECT_EQ(check("/a", WatcherType::kAny, 2), Error::kNoWatcher);  // per connection
  EXPECT_EQ(remove_watches("/a", WatcherType::kData), Error::kNoWatcher);
  read(OpCode::kGetChildren, "/a", true, 1);
  EXPECT_EQ(check("/a", WatcherType::kChildren), Error::kOk);
  EXPECT_EQ(remove_watches("/a", WatcherType::kChildren), Error::kOk);
  EXPECT_EQ(check("/a", WatcherType::kChildren), Error::kNoWatcher);
  EXPECT_EQ(events(set_data("/a", std::string("x")).notifications), V{"1:NodeDataChanged:/a"});
  EXPECT_EQ(remove_watches("/a", WatcherType::kAny), Error::kOk);
  EXPECT_EQ(remove_watches("/a", WatcherType::kAny), Error::kNoWatcher);
  EXPECT_TRUE(set_data("/a", std::string("y")).notifications.empty());
}

TEST_F(PersistentWatchTest, RemovingARecursiveWatchStopsDescendantEvents) {
  create("/a");
  add_watch("/a", AddWatchMode::kPersistentRecursive);
  EXPECT_EQ(remove_watches("/a", WatcherType::kAny), Error::kOk);
  EXPECT_TRUE(create("/a/b").notifications.empty());
}

TEST_F(PersistentWatchTest, ClosedConnectionLosesItsPersistentWatches) {
  add_watch("/a", AddWatchMode::kPersistentRecursive);
  add_watch("/b", AddWatchMode::kPersistent);
  db.remove_watcher(1);
  EXPECT_TRUE(create("/a").notifications.empty());
  EXPECT_TRUE(create("/b").notifications.empty());
  Counts c = db.counts();
  EXPECT_EQ(c.data_watches + c.child_watches, 0);
}

// Apache 3.8 puts both kinds in the data and the child table.
TEST_F(PersistentWatchTest, CountsAsApacheTables) {
  create("/a");
  add_watch("/a", AddWatchMode::kPersistent);
  add_watch("/b", AddWatchMode::kPersistentRecursive, 2);
  read(OpCode::kGetData, "/a", true, 1);  // same pair as the persistent one: counted once
  read(OpCode::kExists, "/c", true, 3);
  Counts c = db.counts();
  EXPECT_EQ(c.data_watches, 3);
  EXPECT_EQ(c.child_watches, 2);
  EXPECT_EQ(c.watched_paths, 3);
  EXPECT_EQ(c.watching_connections, 3);
  EXPECT_EQ(db.watched_paths(2), V{"/b"});
  auto by_path = db.watchers_by_path();
  ASSERT_EQ(by_path.size(), 3u);
  EXPECT_EQ(by_path[0].first, "/a");
  EXPECT_EQ(by_path[1].second, std::vector<WatcherId>{2});
}

TEST_F(PersistentWatchTest, SetWatches2RegistersPersistentListsWithoutCatchUp) {
  create("/a");
  set_data("/a", std::string("x"));
  zk::wire::SetWatches w;
  w.relative_zxid = 0;  // everything changed since
  w.persistent_watches = {"/a", "/missing"};
  w.persistent_recursive_watches = {"/"};
  EXPECT_TRUE(db.set_watches(7, w).empty());
  EXPECT_EQ(events(set_data("/a", std::string("y")).notifications), V{"7:NodeDataChanged:/a"});
  EXPECT_EQ(events(create("/missing").notifications), V{"7:NodeCreated:/missing"});
  EXPECT_EQ(events(create("/a/b").notifications),
            (V{"7:NodeCreated:/a/b", "7:NodeChildrenChanged:/a"}));
}

}  // namespace
}  // namespace zkd::tree::testing
