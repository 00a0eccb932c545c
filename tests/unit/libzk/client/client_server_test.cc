// SPDX-License-Identifier: Apache-2.0
// zk::client against a real server (Apache ZooKeeper 3.8 or zkd, see
// test_server.h). Each test works under its own root znode.
#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>

#include "libzk/client/sync_client.h"
#include "tests/common/tcp_proxy.h"
#include "tests/unit/libzk/client/server_fixture.h"
#include "tests/unit/libzk/client/test_server.h"

namespace zk::client {
namespace {

using namespace std::chrono_literals;
using testing::TestServer;
using zk::test::TcpProxy;
using zk::wire::CreateMode;
using zk::wire::EventType;

using testing::kDeadline;
using testing::kSessionTimeout;
constexpr auto kShortSession = 4s;  // Apache's minimum with tickTime 2000
constexpr auto kLongSession = 30s;  // longer than kDeadline
constexpr size_t kCount = 1000;     // pipelined requests

using ClientServerTest = testing::ServerTest;

TEST_F(ClientServerTest, HandshakeNegotiatesSession) {
  EXPECT_EQ(admin_->state(), SessionState::kConnected);
  EXPECT_NE(admin_->session_id(), 0);
  EXPECT_EQ(admin_->credentials().password.size(), 16u);
  EXPECT_EQ(admin_->negotiated_timeout(), kSessionTimeout);
  EXPECT_EQ(admin_->next_session_event(0ms), SessionState::kConnected);
}

TEST_F(ClientServerTest, EveryOperationHappyPath) {
  auto created = admin_->create(p("a"), std::string("one"));
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(*created, p("a"));

  auto created2 = admin_->create2(p("b"), std::string("two"));
  ASSERT_TRUE(created2.ok());
  EXPECT_EQ(created2->path, p("b"));
  EXPECT_EQ(created2->stat.data_length, 3);
  EXPECT_EQ(created2->stat.version, 0);

  auto data = admin_->get_data(p("a"));
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->data, std::string("one"));

  auto stat = admin_->set_data(p("a"), std::string("uno"), 0);
  ASSERT_TRUE(stat.ok());
  EXPECT_EQ(stat->version, 1);
  EXPECT_EQ(admin_->get_data(p("a"))->data, std::string("uno"));

  auto exists = admin_->exists(p("a"));
  ASSERT_TRUE(exists.ok());
  ASSERT_TRUE(exists->has_value());
  EXPECT_EQ((*exists)->version, 1);

  auto children = admin_->get_children(root_);
  ASSERT_TRUE(children.ok());
  std::sort(children->begin(), children->end());
  EXPECT_EQ(*children, (std::vector<std::string>{"a", "b"}));

  auto children2 = admin_->get_children2(root_);
  ASSERT_TRUE(children2.ok());
  EXPECT_EQ(children2->names.size(), 2u);
  EXPECT_EQ(children2->stat.num_children, 2);

  auto acl = admin_->get_acl(p("a"));
  ASSERT_TRUE(acl.ok());
  EXPECT_EQ(acl->acl, zk::wire::open_acl_unsafe());

  auto acl_stat = admin_->set_acl(p("a"), zk::wire::read_acl_unsafe(), 0);
  ASSERT_TRUE(acl_stat.ok());
  EXPECT_EQ(acl_stat->aversion, 1);
  EXPECT_EQ(admin_->get_acl(p("a"))->acl, zk::wire::read_acl_unsafe());
  // READ only: writes are refused now. zkd stores ACLs but enforces them only
  // from the ACL issue on.
  if (TestServer::kind() == "apache") {
    EXPECT_EQ(admin_->set_data(p("a"), std::string("x")).error(), Error::kNoAuth);
  }

  EXPECT_TRUE(admin_->sync(p("a")).ok());
  EXPECT_TRUE(admin_->remove(p("b"), 0).ok());
  EXPECT_FALSE(admin_->exists(p("b"))->has_value());
}

TEST_F(ClientServerTest, NullAndEmptyDataAreDistinct) {
  ASSERT_TRUE(admin_->create(p("null"), std::nullopt).ok());
  ASSERT_TRUE(admin_->create(p("empty"), std::string()).ok());
  EXPECT_EQ(admin_->get_data(p("empty"))->data, std::string());
  EXPECT_EQ(admin_->get_data(p("empty"))->stat.data_length, 0);
  EXPECT_EQ(admin_->get_data(p("null"))->stat.data_length, 0);
}

TEST_F(ClientServerTest, SequentialCreateAppendsCounter) {
  auto first = admin_->create(p("seq-"), std::nullopt, CreateMode::kPersistentSequential);
  auto second = admin_->create(p("seq-"), std::nullopt, CreateMode::kPersistentSequential);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*first, p("seq-0000000000"));
  EXPECT_EQ(*second, p("seq-0000000001"));
  // A trailing '/' is allowed for sequential creates: the name is the counter.
  auto bare = admin_->create(p("dir"), std::nullopt);
  ASSERT_TRUE(bare.ok());
  auto child = admin_->create(p("dir/"), std::nullopt, CreateMode::kPersistentSequential);
  ASSERT_TRUE(child.ok()) << zk::wire::error_name(child.error());
  EXPECT_EQ(*child, p("dir/0000000000"));
}

TEST_F(ClientServerTest, OperationErrors) {
  EXPECT_EQ(admin_->create(p("missing/child"), std::nullopt).error(), Error::kNoNode);
  EXPECT_EQ(admin_->get_data(p("missing")).error(), Error::kNoNode);
  EXPECT_EQ(admin_->set_data(p("missing"), std::nullopt).error(), Error::kNoNode);
  EXPECT_EQ(admin_->remove(p("missing")).error(), Error::kNoNode);
  EXPECT_EQ(admin_->get_children(p("missing")).error(), Error::kNoNode);
  EXPECT_EQ(admin_->get_acl(p("missing")).error(), Error::kNoNode);
  auto absent = admin_->exists(p("missing"));
  ASSERT_TRUE(absent.ok());  // NONODE is not an error for exists
  EXPECT_FALSE(absent->has_value());

  ASSERT_TRUE(admin_->create(p("n"), std::nullopt).ok());
  EXPECT_EQ(admin_->create(p("n"), std::nullopt).error(), Error::kNodeExists);
  EXPECT_EQ(admin_->set_data(p("n"), std::nullopt, 5).error(), Error::kBadVersion);
  EXPECT_EQ(admin_->remove(p("n"), 5).error(), Error::kBadVersion);
  EXPECT_EQ(admin_->set_acl(p("n"), zk::wire::open_acl_unsafe(), 5).error(), Error::kBadVersion);

  ASSERT_TRUE(admin_->create(p("n/c"), std::nullopt).ok());
  EXPECT_EQ(admin_->remove(p("n")).error(), Error::kNotEmpty);

  ASSERT_TRUE(admin_->create(p("eph"), std::nullopt, CreateMode::kEphemeral).ok());
  EXPECT_EQ(admin_->create(p("eph/c"), std::nullopt).error(), Error::kNoChildrenForEphemerals);
}

TEST_F(ClientServerTest, InvalidPathsFailWithoutRoundTrip) {
  EXPECT_EQ(admin_->create("no-slash", std::nullopt).error(), Error::kBadArguments);
  EXPECT_EQ(admin_->create(p("trailing/"), std::nullopt).error(), Error::kBadArguments);
  EXPECT_EQ(admin_->get_data(p("a//b")).error(), Error::kBadArguments);
  EXPECT_EQ(admin_->exists(p(".")).error(), Error::kBadArguments);
  EXPECT_EQ(admin_->remove("").error(), Error::kBadArguments);
  EXPECT_EQ(admin_->set_data(p("x/.."), std::nullopt).error(), Error::kBadArguments);
  // The session is untouched.
  EXPECT_EQ(admin_->state(), SessionState::kConnected);
  EXPECT_TRUE(admin_->exists(root_).ok());
}

TEST_F(ClientServerTest, ChrootIsPrefixedAndStripped) {
  auto rooted = connect(root_);
  auto created = rooted->create("/inside", std::string("x"));
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(*created, "/inside");
  EXPECT_TRUE(admin_->exists(p("inside"))->has_value());
  auto seq = rooted->create("/s-", std::nullopt, CreateMode::kPersistentSequential);
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(*seq, "/s-0000000001");  // the root already has a child ("inside")

  auto names = rooted->get_children("/");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names->size(), 2u);

  ASSERT_TRUE(rooted->get_data("/inside", true).ok());
  ASSERT_TRUE(rooted->get_children("/", true).ok());
  auto changed = admin_->set_data(p("inside"), std::string("y"));
  ASSERT_TRUE(changed.ok());
  auto event = rooted->next_watch_event(kDeadline);
  ASSERT_TRUE(event.has_value());
  // The header zxid: the setData's (zkd, Apache 3.9), or -1 (Apache 3.8).
  const int64_t zxid = event->zxid == -1 ? -1 : changed->mzxid;
  EXPECT_EQ(*event, (WatchedEvent{EventType::kNodeDataChanged,
                                  zk::wire::KeeperState::kSyncConnected, "/inside", zxid}));
  ASSERT_TRUE(admin_->create(p("new"), std::nullopt).ok());
  event = rooted->next_watch_event(kDeadline);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->type, EventType::kNodeChildrenChanged);
  EXPECT_EQ(event->path, "/");
}

TEST_F(ClientServerTest, WatchFiresOnceAndBeforeLaterReadResult) {
  ASSERT_TRUE(admin_->create(p("w"), std::string("0")).ok());
  auto watcher = connect();
  ASSERT_TRUE(watcher->get_data(p("w"), true).ok());
  ASSERT_TRUE(admin_->set_data(p("w"), std::string("1")).ok());
  // The read is answered after the notification, so the event is already
  // queued when the read returns: no waiting needed.
  auto read = watcher->get_data(p("w"));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->data, std::string("1"));
  auto event = watcher->next_watch_event(0ms);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->type, EventType::kNodeDataChanged);
  EXPECT_EQ(event->path, p("w"));

  // One-shot: a second change is not reported.
  ASSERT_TRUE(admin_->set_data(p("w"), std::string("2")).ok());
  ASSERT_TRUE(watcher->get_data(p("w")).ok());
  EXPECT_FALSE(watcher->next_watch_event(0ms).has_value());
}

TEST_F(ClientServerTest, WatchCallbackRunsBeforeLaterOperationResumes) {
  ASSERT_TRUE(admin_->create(p("w"), std::string("0")).ok());
  auto watcher = connect();
  Client& client = watcher->async_client();
  auto log = std::make_shared<std::vector<std::string>>();  // touched on the io thread only
  std::string path = p("w");

  // Coroutine lambdas take parameters instead of captures: the lambda object
  // is a temporary, its captures would dangle once the coroutine suspends.
  auto set_watch = boost::asio::co_spawn(
      watcher->executor(),
      [](Client& client, std::shared_ptr<std::vector<std::string>> log,
         std::string path) -> boost::asio::awaitable<bool> {
        // g++ 12 destroys a converted temporary argument (lambda -> std::function)
        // of a co_awaited call twice: name the callback first.
        WatchCallback on_event = [log](const WatchedEvent& e) {
          log->push_back("watch:" + std::string(zk::wire::event_type_name(e.type)));
        };
        auto r = co_await client.get_data(path, std::move(on_event));
        co_return r.ok();
      }(client, log, path),
      boost::asio::use_future);
  ASSERT_TRUE(set_watch.get());
  ASSERT_TRUE(admin_->set_data(p("w"), std::string("1")).ok());
  auto read = boost::asio::co_spawn(
      watcher->executor(),
      [](Client& client, std::shared_ptr<std::vector<std::string>> log,
         std::string path) -> boost::asio::awaitable<std::vector<std::string>> {
        auto r = co_await client.exists(path);
        log->push_back(r.ok() ? "exists:ok" : "exists:error");
        co_return *log;
      }(client, log, path),
      boost::asio::use_future);
  EXPECT_EQ(read.get(), (std::vector<std::string>{"watch:NodeDataChanged", "exists:ok"}));
}

TEST_F(ClientServerTest, ExistsWatchFiresOnCreation) {
  auto watcher = connect();
  auto absent = watcher->exists(p("later"), true);
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
  ASSERT_TRUE(admin_->create(p("later"), std::nullopt).ok());
  auto event = watcher->next_watch_event(kDeadline);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->type, EventType::kNodeCreated);
  EXPECT_EQ(event->path, p("later"));
}

// A watch given as a callback calls it and is not queued for next_watch_event.
TEST_F(ClientServerTest, CallbackWatchesCallTheirOwnCallback) {
  auto watcher = connect();
  ASSERT_TRUE(admin_->create(p("cb"), std::string("a")).ok());
  std::promise<WatchedEvent> data_fired, child_fired, created_fired;
  ASSERT_TRUE(
      watcher->get_data(p("cb"), [&](const WatchedEvent& e) { data_fired.set_value(e); }).ok());
  ASSERT_TRUE(
      watcher->get_children(p("cb"), [&](const WatchedEvent& e) { child_fired.set_value(e); })
          .ok());
  ASSERT_TRUE(
      watcher->exists(p("cb2"), [&](const WatchedEvent& e) { created_fired.set_value(e); }).ok());
  ASSERT_TRUE(admin_->set_data(p("cb"), std::string("b")).ok());
  ASSERT_TRUE(admin_->create(p("cb/kid"), std::nullopt).ok());
  ASSERT_TRUE(admin_->create(p("cb2"), std::nullopt).ok());
  auto data = data_fired.get_future();
  auto child = child_fired.get_future();
  auto created = created_fired.get_future();
  ASSERT_EQ(data.wait_for(kDeadline), std::future_status::ready);
  ASSERT_EQ(child.wait_for(kDeadline), std::future_status::ready);
  ASSERT_EQ(created.wait_for(kDeadline), std::future_status::ready);
  EXPECT_EQ(data.get().type, EventType::kNodeDataChanged);
  EXPECT_EQ(child.get().type, EventType::kNodeChildrenChanged);
  EXPECT_EQ(created.get().type, EventType::kNodeCreated);
  EXPECT_FALSE(watcher->next_watch_event(0ms).has_value());
}

TEST_F(ClientServerTest, ThousandPipelinedRequestsCompleteInOrder) {
  ASSERT_TRUE(admin_->create(p("pipe"), std::string("x")).ok());
  Client& client = admin_->async_client();
  auto ex = admin_->executor();
  struct Tally {
    std::vector<int> completion_order;
    std::vector<Error> errors;
    std::promise<void> done;
  };
  auto tally = std::make_shared<Tally>();
  std::string path = p("pipe");
  // One handler on the io thread starts every request before any reply can
  // be read, so all 1000 are in flight together. set_data with the expected
  // version only succeeds if the server applies them in issue order.
  boost::asio::post(ex, [&client, ex, tally, path] {
    for (int i = 0; i < static_cast<int>(kCount); ++i) {
      boost::asio::co_spawn(
          ex,
          [](Client& client, std::shared_ptr<Tally> tally, std::string path,
             int i) -> boost::asio::awaitable<void> {
            auto r = co_await client.set_data(path, std::to_string(i), i);
            tally->completion_order.push_back(i);
            tally->errors.push_back(r.error());
            if (tally->completion_order.size() == kCount) tally->done.set_value();
          }(client, tally, path, i),
          [](std::exception_ptr e) {
            if (e) std::rethrow_exception(e);
          });
    }
  });
  ASSERT_EQ(tally->done.get_future().wait_for(60s), std::future_status::ready);
  std::vector<int> expected(kCount);
  for (size_t i = 0; i < kCount; ++i) expected[i] = static_cast<int>(i);
  EXPECT_EQ(tally->completion_order, expected);
  EXPECT_EQ(tally->errors, std::vector<Error>(kCount, Error::kOk));
  auto last = admin_->get_data(p("pipe"));
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->data, std::to_string(kCount - 1));
  EXPECT_EQ(last->stat.version, static_cast<int32_t>(kCount));
}

// A reply longer than the client's jute.maxbuffer fails that request alone
// with REPLYTOOLARGE, saying how long it was; the rest of it is skipped and
// the next request on the same connection succeeds.
TEST_F(ClientServerTest, ReplyLongerThanMaxBufferFailsOnlyItsRequest) {
  constexpr int32_t kLimit = 1024 * 1024;
  // Names of 1000 bytes: a listing of 2 MiB less 8 KiB, within the default.
  constexpr size_t kChildren = 2080;
  ASSERT_TRUE(admin_->create(p("big"), std::string()).ok());
  std::vector<zk::wire::MultiOp> batch;
  for (size_t i = 0; i < kChildren; ++i) {
    std::string name = std::to_string(i);
    name.resize(1000, 'x');
    batch.push_back(zk::wire::multi_create(p("big") + "/" + name, std::string()));
    if (batch.size() == 500 || i + 1 == kChildren) {
      ASSERT_TRUE(admin_->multi(batch).ok());
      batch.clear();
    }
  }
  ClientOptions options;
  options.max_reply_bytes = kLimit;
  auto reader = connect("", kSessionTimeout, options);
  ASSERT_EQ(reader->next_session_event(kDeadline), SessionState::kConnected);
  EXPECT_EQ(reader->refused_reply_bytes(), 0);

  auto listing = reader->get_children(p("big"));
  EXPECT_EQ(listing.error(), Error::kReplyTooLarge);
  EXPECT_GT(reader->refused_reply_bytes(), 2 * 1000 * 1000);
  // The same connection serves on: no state change, the next reads succeed.
  auto data = reader->get_data(p("big"));
  ASSERT_TRUE(data.ok()) << zk::wire::error_name(data.error());
  EXPECT_EQ(data->stat.num_children, static_cast<int32_t>(kChildren));
  EXPECT_EQ(reader->get_all_children_number(p("big")).value(), static_cast<int32_t>(kChildren));
  EXPECT_FALSE(reader->next_session_event(0ms).has_value());
  // A client left at the default reads the whole listing.
  auto all = admin_->get_children(p("big"));
  ASSERT_TRUE(all.ok()) << zk::wire::error_name(all.error());
  EXPECT_EQ(all->size(), kChildren);
}

TEST_F(ClientServerTest, EphemeralGoneAfterClose) {
  auto owner = connect();
  ASSERT_TRUE(owner->create(p("eph"), std::nullopt, CreateMode::kEphemeral).ok());
  auto stat = admin_->exists(p("eph"), true);
  ASSERT_TRUE(stat.ok());
  ASSERT_TRUE(stat->has_value());
  EXPECT_EQ((*stat)->ephemeral_owner, owner->session_id());

  ASSERT_TRUE(admin_->create(p("other"), std::nullopt).ok());
  ASSERT_TRUE(owner->get_data(p("eph"), true).ok());
  ASSERT_TRUE(owner->get_data(p("other"), true).ok());
  ASSERT_TRUE(owner->close().ok());
  EXPECT_EQ(owner->state(), SessionState::kClosed);
  // The server deletes the ephemeral (and notifies) before answering close.
  auto own_delete = owner->next_watch_event(0ms);
  ASSERT_TRUE(own_delete.has_value());
  EXPECT_EQ(own_delete->type, EventType::kNodeDeleted);
  EXPECT_EQ(own_delete->path, p("eph"));
  // A watch that never triggered ends with the session.
  auto closed = owner->next_watch_event(0ms);
  ASSERT_TRUE(closed.has_value());
  EXPECT_EQ(closed->path, p("other"));
  EXPECT_EQ(closed->type, EventType::kNone);
  EXPECT_EQ(closed->state, zk::wire::KeeperState::kClosed);
  EXPECT_EQ(owner->get_data(p("eph")).error(), Error::kClosing);

  EXPECT_FALSE(admin_->exists(p("eph"))->has_value());
  auto deleted = admin_->next_watch_event(kDeadline);
  ASSERT_TRUE(deleted.has_value());
  EXPECT_EQ(deleted->type, EventType::kNodeDeleted);
  EXPECT_EQ(deleted->path, p("eph"));
}

TEST_F(ClientServerTest, ConnectFailsClearlyWhenNoServerAnswers) {
  SyncClient client;
  const auto unused = testing::unused_port();
  std::string nowhere = "127.0.0.1:" + std::to_string(unused.port());
  Status s = client.connect(nowhere, kSessionTimeout, 1500ms);
  EXPECT_EQ(s.error(), Error::kConnectionLoss);
  EXPECT_EQ(client.get_data("/").error(), Error::kClosing);
}

TEST_F(ClientServerTest, BadConnectStringIsRejected) {
  SyncClient client;
  EXPECT_EQ(client.connect("127.0.0.1:2181/bad/", kSessionTimeout, 1s).error(),
            Error::kBadArguments);
}

TEST_F(ClientServerTest, SkipsDeadFirstHost) {
  ClientOptions options;
  options.shuffle_hosts = false;
  SyncClient client(options);
  const auto unused = testing::unused_port();
  std::string hosts = "127.0.0.1:" + std::to_string(unused.port()) + "," + server_->address();
  ASSERT_TRUE(client.connect(hosts, kSessionTimeout, kDeadline).ok());
  EXPECT_TRUE(client.exists(root_).ok());
}

TEST_F(ClientServerTest, ConnectionLossThenResumptionKeepsSessionAndWatches) {
  TcpProxy proxy(server_->port());
  ClientOptions options;
  options.shuffle_hosts = false;
  SyncClient client(options);
  ASSERT_TRUE(client.connect(proxy.address(), kSessionTimeout, kDeadline).ok());
  ASSERT_EQ(client.next_session_event(0ms), SessionState::kConnected);
  int64_t session = client.session_id();
  ASSERT_TRUE(client.create(p("eph"), std::nullopt, CreateMode::kEphemeral).ok());
  ASSERT_TRUE(admin_->create(p("w1"), std::string("a")).ok());
  ASSERT_TRUE(admin_->create(p("w2"), std::string("a")).ok());
  ASSERT_TRUE(client.get_data(p("w1"), true).ok());
  ASSERT_TRUE(client.get_data(p("w2"), true).ok());

  proxy.set_refusing(true);
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kDisconnected);
  // While disconnected, a request fails when the next attempt fails.
  EXPECT_EQ(client.get_data(p("w1")).error(), Error::kConnectionLoss);
  // A change made while we are away is reported on resumption (setWatches).
  ASSERT_TRUE(admin_->set_data(p("w2"), std::string("b")).ok());

  proxy.set_refusing(false);
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kConnected);
  EXPECT_EQ(client.session_id(), session);
  auto caught_up = client.next_watch_event(kDeadline);
  ASSERT_TRUE(caught_up.has_value());
  EXPECT_EQ(caught_up->type, EventType::kNodeDataChanged);
  EXPECT_EQ(caught_up->path, p("w2"));
  // The other watch was re-registered and still works.
  ASSERT_TRUE(admin_->set_data(p("w1"), std::string("b")).ok());
  auto event = client.next_watch_event(kDeadline);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->path, p("w1"));
  // The ephemeral survived the connection loss.
  EXPECT_TRUE(admin_->exists(p("eph"))->has_value());
  EXPECT_GE(proxy.forwarded_connections(), 2);
}

TEST_F(ClientServerTest, DroppedConnectionFailsInFlightAndReconnects) {
  TcpProxy proxy(server_->port());
  SyncClient client;
  ASSERT_TRUE(client.connect(proxy.address(), kSessionTimeout, kDeadline).ok());
  ASSERT_EQ(client.next_session_event(0ms), SessionState::kConnected);
  proxy.drop_all();
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kDisconnected);
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kConnected);
  EXPECT_TRUE(client.exists(root_).ok());
}

// A server that accepts TCP and never answers the handshake (Apache 3.8 does
// that to connections accepted while it starts up) must not hold a
// reconnecting client for the whole session timeout: with one host that is
// Java's connect timeout, and then no second attempt fits in the session.
TEST_F(ClientServerTest, SilentServerDoesNotStallReconnection) {
  TcpProxy proxy(server_->port());
  SyncClient client;
  ASSERT_TRUE(client.connect(proxy.address(), kLongSession, kDeadline).ok());
  ASSERT_EQ(client.next_session_event(0ms), SessionState::kConnected);
  ASSERT_EQ(client.negotiated_timeout(), kLongSession);
  int64_t session = client.session_id();

  proxy.set_silent(true);
  proxy.drop_all();
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kDisconnected);
  // The reconnection attempt is accepted and then never answered.
  ASSERT_TRUE(proxy.wait_for_held(1, kDeadline));
  proxy.set_silent(false);
  // The client gives that attempt up well within the session timeout and
  // resumes the session through the proxy (kDeadline < kLongSession).
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kConnected);
  EXPECT_EQ(client.session_id(), session);
  EXPECT_TRUE(client.exists(root_).ok());
}

TEST_F(ClientServerTest, ReconnectsToNextHostWithSameSession) {
  TcpProxy proxy(server_->port());
  ClientOptions options;
  options.shuffle_hosts = false;
  SyncClient client(options);
  // First host: the proxy; second: the server itself (same session store).
  ASSERT_TRUE(
      client.connect(proxy.address() + "," + server_->address(), kSessionTimeout, kDeadline).ok());
  int64_t session = client.session_id();
  ASSERT_EQ(proxy.forwarded_connections(), 1);
  proxy.set_refusing(true);
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kConnected);  // the first one
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kDisconnected);
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kConnected);
  EXPECT_EQ(client.session_id(), session);
  EXPECT_TRUE(client.exists(root_).ok());
}

TEST_F(ClientServerTest, ExpiryIsDistinctFromConnectionLoss) {
  TcpProxy proxy(server_->port());
  ClientOptions options;
  options.shuffle_hosts = false;
  SyncClient client(options);
  ASSERT_TRUE(client.connect(proxy.address(), kShortSession, kDeadline).ok());
  ASSERT_EQ(client.next_session_event(0ms), SessionState::kConnected);
  ASSERT_TRUE(client.create(p("eph"), std::nullopt, CreateMode::kEphemeral).ok());
  ASSERT_TRUE(client.exists(p("eph"), true).ok());

  proxy.set_refusing(true);
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kDisconnected);

  // Someone else resumes the session and closes it: the session is gone.
  ClientOptions resume;
  resume.resume = client.credentials();
  SyncClient other(resume);
  ASSERT_TRUE(other.connect(server_->address(), kShortSession, kDeadline).ok());
  EXPECT_EQ(other.session_id(), client.session_id());
  ASSERT_TRUE(other.close().ok());
  EXPECT_FALSE(admin_->exists(p("eph"))->has_value());

  proxy.set_refusing(false);
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kExpired);
  EXPECT_EQ(client.state(), SessionState::kExpired);
  EXPECT_EQ(client.get_data(root_).error(), Error::kSessionExpired);
  auto ended = client.next_watch_event(0ms);
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->type, EventType::kNone);
  EXPECT_EQ(ended->state, zk::wire::KeeperState::kExpired);
  EXPECT_EQ(ended->path, p("eph"));
  // Terminal: no further session events.
  EXPECT_FALSE(client.next_session_event(0ms).has_value());
}

TEST_F(ClientServerTest, ResumingAClosedSessionReportsExpired) {
  auto first = connect();
  SessionCredentials credentials = first->credentials();
  ASSERT_TRUE(first->close().ok());
  ClientOptions options;
  options.resume = credentials;
  SyncClient client(options);
  EXPECT_EQ(client.connect(server_->address(), kSessionTimeout, kDeadline).error(),
            Error::kSessionExpired);
  EXPECT_EQ(client.next_session_event(kDeadline), SessionState::kExpired);
}

TEST_F(ClientServerTest, DigestAuthGrantsAccess) {
  auto owner = connect();
  ASSERT_TRUE(owner->add_auth("digest", std::string("alice:secret")).ok());
  zk::wire::ACLs creator_only = {{zk::wire::perms::kAll, {"auth", ""}}};
  ASSERT_TRUE(
      owner->create(p("private"), std::string("s"), CreateMode::kPersistent, creator_only).ok());
  EXPECT_TRUE(owner->get_data(p("private")).ok());
  EXPECT_EQ(admin_->get_data(p("private")).error(), Error::kNoAuth);
}

TEST_F(ClientServerTest, UnknownAuthSchemeEndsSession) {
  auto client = connect();
  ASSERT_EQ(client->next_session_event(0ms), SessionState::kConnected);
  EXPECT_EQ(client->add_auth("no-such-scheme", std::string("x")).error(), Error::kAuthFailed);
  EXPECT_EQ(client->state(), SessionState::kAuthFailed);
  EXPECT_EQ(client->next_session_event(kDeadline), SessionState::kAuthFailed);
  EXPECT_EQ(client->exists("/").error(), Error::kAuthFailed);
}

}  // namespace
}  // namespace zk::client
