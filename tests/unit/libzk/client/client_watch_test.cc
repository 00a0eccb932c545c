// SPDX-License-Identifier: Apache-2.0
// Persistent watches (addWatch), removeWatches and checkWatches through
// zk::client against a real server (Apache ZooKeeper 3.8 or zkd, see
// test_server.h), including their re-registration by setWatches2 after a
// connection loss.
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "libzk/client/sync_client.h"
#include "tests/common/tcp_proxy.h"
#include "tests/unit/libzk/client/server_fixture.h"

namespace zk::client {
namespace {

using namespace std::chrono_literals;
using testing::kDeadline;
using testing::kSessionTimeout;
using zk::test::TcpProxy;
using zk::wire::AddWatchMode;
using zk::wire::EventType;
using zk::wire::WatcherType;

using ClientWatchTest = testing::ServerTest;

// "NodeCreated /path" for the next queued event, "none" when none came.
std::string next_event(SyncClient& c) {
  auto e = c.next_watch_event(kDeadline);
  if (!e) return "none";
  return std::string(zk::wire::event_type_name(e->type)) + " " + e->path;
}

TEST_F(ClientWatchTest, PersistentWatchReportsEveryEventOnItsPath) {
  auto c = connect();
  ASSERT_TRUE(c->add_watch(p("a"), AddWatchMode::kPersistent).ok());
  ASSERT_TRUE(admin_->create(p("a"), std::string("1")).ok());
  ASSERT_TRUE(admin_->set_data(p("a"), std::string("2")).ok());
  ASSERT_TRUE(admin_->set_data(p("a"), std::string("3")).ok());
  ASSERT_TRUE(admin_->create(p("a/c"), std::string()).ok());
  ASSERT_TRUE(admin_->remove(p("a/c")).ok());
  ASSERT_TRUE(admin_->remove(p("a")).ok());
  EXPECT_EQ(next_event(*c), "NodeCreated " + p("a"));
  EXPECT_EQ(next_event(*c), "NodeDataChanged " + p("a"));
  EXPECT_EQ(next_event(*c), "NodeDataChanged " + p("a"));
  EXPECT_EQ(next_event(*c), "NodeChildrenChanged " + p("a"));
  EXPECT_EQ(next_event(*c), "NodeChildrenChanged " + p("a"));
  EXPECT_EQ(next_event(*c), "NodeDeleted " + p("a"));
}

TEST_F(ClientWatchTest, RecursiveWatchReportsDescendantsButNoChildrenChanged) {
  auto c = connect();
  ASSERT_TRUE(c->add_watch(p("r"), AddWatchMode::kPersistentRecursive).ok());
  ASSERT_TRUE(admin_->create(p("r"), std::string()).ok());
  ASSERT_TRUE(admin_->create(p("r/x"), std::string()).ok());
  ASSERT_TRUE(admin_->create(p("r/x/y"), std::string()).ok());
  ASSERT_TRUE(admin_->set_data(p("r/x/y"), std::string("v")).ok());
  ASSERT_TRUE(admin_->remove(p("r/x/y")).ok());
  ASSERT_TRUE(admin_->create(p("rx"), std::string()).ok());  // a sibling, not a descendant
  ASSERT_TRUE(admin_->set_data(p("r"), std::string("v")).ok());
  EXPECT_EQ(next_event(*c), "NodeCreated " + p("r"));
  EXPECT_EQ(next_event(*c), "NodeCreated " + p("r/x"));
  EXPECT_EQ(next_event(*c), "NodeCreated " + p("r/x/y"));
  EXPECT_EQ(next_event(*c), "NodeDataChanged " + p("r/x/y"));
  EXPECT_EQ(next_event(*c), "NodeDeleted " + p("r/x/y"));
  EXPECT_EQ(next_event(*c), "NodeDataChanged " + p("r"));
}

TEST_F(ClientWatchTest, CallbackWatchIsCalledUntilRemoved) {
  auto c = connect();
  std::mutex mu;
  std::vector<EventType> seen;
  WatchCallback cb = [&](const WatchedEvent& e) {
    std::lock_guard lock(mu);
    seen.push_back(e.type);
  };
  ASSERT_TRUE(admin_->create(p("cb"), std::string()).ok());
  ASSERT_TRUE(c->add_watch(p("cb"), AddWatchMode::kPersistent, cb).ok());
  ASSERT_TRUE(c->exists(p("m1"), true).ok());  // marker: its event follows ours
  ASSERT_TRUE(admin_->set_data(p("cb"), std::string("1")).ok());
  ASSERT_TRUE(admin_->create(p("m1"), std::string()).ok());
  EXPECT_EQ(next_event(*c), "NodeCreated " + p("m1"));
  ASSERT_TRUE(c->remove_watches(p("cb"), WatcherType::kAny).ok());
  EXPECT_EQ(c->check_watches(p("cb"), WatcherType::kAny).error(), Error::kNoWatcher);
  EXPECT_EQ(c->remove_watches(p("cb"), WatcherType::kAny).error(), Error::kNoWatcher);
  ASSERT_TRUE(c->exists(p("m2"), true).ok());
  ASSERT_TRUE(admin_->set_data(p("cb"), std::string("2")).ok());
  ASSERT_TRUE(admin_->create(p("m2"), std::string()).ok());
  EXPECT_EQ(next_event(*c), "NodeCreated " + p("m2"));
  std::lock_guard lock(mu);
  EXPECT_EQ(seen, (std::vector<EventType>{EventType::kNodeDataChanged,
                                          EventType::kPersistentWatchRemoved}));
}

TEST_F(ClientWatchTest, RemoveWatchesByType) {
  auto c = connect();
  ASSERT_TRUE(admin_->create(p("t"), std::string()).ok());
  ASSERT_TRUE(c->get_data(p("t"), true).ok());
  ASSERT_TRUE(c->get_children(p("t"), true).ok());
  EXPECT_TRUE(c->check_watches(p("t"), WatcherType::kData).ok());
  EXPECT_EQ(c->remove_watches(p("none"), WatcherType::kAny).error(), Error::kNoWatcher);
  ASSERT_TRUE(c->remove_watches(p("t"), WatcherType::kChildren).ok());
  EXPECT_EQ(next_event(*c), "ChildWatchRemoved " + p("t"));
  ASSERT_TRUE(admin_->create(p("t/c"), std::string()).ok());  // no child watch left
  ASSERT_TRUE(admin_->set_data(p("t"), std::string("x")).ok());
  EXPECT_EQ(next_event(*c), "NodeDataChanged " + p("t"));
}

// The persistent watch is re-sent with setWatches2 on the new connection:
// without it no event would come; a change missed while away has no
// catch-up event (§9.5).
TEST_F(ClientWatchTest, PersistentWatchSurvivesConnectionLoss) {
  TcpProxy proxy(server_->port());
  SyncClient client;
  ASSERT_TRUE(client.connect(proxy.address(), kSessionTimeout, kDeadline).ok());
  ASSERT_EQ(client.next_session_event(0ms), SessionState::kConnected);
  ASSERT_TRUE(client.add_watch(p("s"), AddWatchMode::kPersistentRecursive).ok());
  ASSERT_TRUE(client.add_watch(p("plain"), AddWatchMode::kPersistent).ok());
  ASSERT_TRUE(admin_->create(p("plain"), std::string()).ok());  // a one-shot list too
  EXPECT_EQ(next_event(client), "NodeCreated " + p("plain"));
  ASSERT_TRUE(client.exists(p("plain"), true).ok());

  proxy.set_refusing(true);
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kDisconnected);
  ASSERT_TRUE(admin_->create(p("s"), std::string()).ok());  // missed while away
  proxy.set_refusing(false);
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kConnected);
  // setWatches2 goes ahead of later requests: once this is answered, the
  // watches are back on the server.
  ASSERT_TRUE(client.exists(root_).ok());

  ASSERT_TRUE(admin_->create(p("s/after"), std::string()).ok());
  EXPECT_EQ(next_event(client), "NodeCreated " + p("s/after"));
  ASSERT_TRUE(admin_->set_data(p("plain"), std::string("x")).ok());
  // The one-shot exists watch and the persistent one both fire.
  EXPECT_EQ(next_event(client), "NodeDataChanged " + p("plain"));
  EXPECT_EQ(next_event(client), "NodeDataChanged " + p("plain"));
  EXPECT_GE(proxy.forwarded_connections(), 2);
}

}  // namespace
}  // namespace zk::client
