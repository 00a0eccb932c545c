// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/response_dispatcher.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zk::client {
namespace {

using zk::wire::Error;
using zk::wire::EventType;
using zk::wire::OpCode;
using Route = ResponseDispatcher::Route;

std::string reply_frame(int32_t xid, int64_t zxid, Error err, const std::string& body = {}) {
  std::string out;
  zk::wire::Writer w(out);
  zk::wire::ReplyHeader{xid, zxid, err}.write(w);
  out += body;
  return out;
}

std::string notification(EventType type, const std::string& path) {
  std::string body;
  zk::wire::Writer w(body);
  zk::wire::WatcherEvent{type, zk::wire::KeeperState::kSyncConnected, path}.write(w);
  return reply_frame(zk::wire::kNotificationXid, -1, Error::kOk, body);
}

class DispatcherTest : public ::testing::Test {
 protected:
  // A request whose reply appends "reply:<xid>:<err>" to the log.
  SentRequest request(int32_t xid, OpCode op = OpCode::kGetData) {
    SentRequest r;
    r.xid = xid;
    r.op = op;
    r.on_reply = [this](Reply reply) {
      log.push_back("reply:" + std::to_string(reply.header.xid) + ":" +
                    std::to_string(static_cast<int>(reply.header.err)));
    };
    return r;
  }
  WatchCallback watch(const std::string& name) {
    return [this, name](const WatchedEvent& e) {
      log.push_back("watch:" + name + ":" + std::string(zk::wire::event_type_name(e.type)) + ":" +
                    e.path);
    };
  }

  ResponseDispatcher dispatcher{Chroot("/app")};
  std::vector<std::string> log;
};

TEST_F(DispatcherTest, MatchesRepliesInFifoOrder) {
  dispatcher.sent(request(1));
  dispatcher.sent(request(2));
  EXPECT_EQ(dispatcher.dispatch(reply_frame(1, 10, Error::kOk)), Route::kReply);
  EXPECT_EQ(dispatcher.dispatch(reply_frame(2, 11, Error::kNoNode)), Route::kReply);
  EXPECT_EQ(log, (std::vector<std::string>{"reply:1:0", "reply:2:-101"}));
  EXPECT_EQ(dispatcher.last_zxid_seen(), 11);
  EXPECT_EQ(dispatcher.outstanding(), 0u);
}

TEST_F(DispatcherTest, OutOfOrderXidIsFatal) {
  dispatcher.sent(request(1));
  dispatcher.sent(request(2));
  EXPECT_EQ(dispatcher.dispatch(reply_frame(2, 10, Error::kOk)), Route::kOutOfOrder);
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(dispatcher.dispatch(reply_frame(7, 10, Error::kOk)), Route::kOutOfOrder);
}

TEST_F(DispatcherTest, ReplyWithNothingOutstandingIsFatal) {
  EXPECT_EQ(dispatcher.dispatch(reply_frame(1, 10, Error::kOk)), Route::kOutOfOrder);
}

TEST_F(DispatcherTest, AuthRepliesAreMatchedByXidAndMayOvertake) {
  dispatcher.sent(request(1));
  dispatcher.sent(request(zk::wire::kAuthXid, OpCode::kAuth));
  EXPECT_EQ(dispatcher.dispatch(reply_frame(zk::wire::kAuthXid, 0, Error::kOk)), Route::kAuthReply);
  EXPECT_EQ(dispatcher.dispatch(reply_frame(1, 5, Error::kOk)), Route::kReply);
  EXPECT_EQ(log, (std::vector<std::string>{"reply:-4:0", "reply:1:0"}));
}

TEST_F(DispatcherTest, PingRepliesNeedNoRequest) {
  EXPECT_EQ(dispatcher.dispatch(reply_frame(zk::wire::kPingXid, 3, Error::kOk)), Route::kPing);
  EXPECT_EQ(dispatcher.last_zxid_seen(), 3);
}

TEST_F(DispatcherTest, MalformedFramesAreReported) {
  EXPECT_EQ(dispatcher.dispatch("abc"), Route::kMalformed);
  EXPECT_EQ(dispatcher.dispatch(reply_frame(zk::wire::kNotificationXid, -1, Error::kOk, "x")),
            Route::kMalformed);
}

TEST_F(DispatcherTest, WatchRegisteredOnSuccessFiresOnceBeforeLaterReply) {
  SentRequest get = request(1);
  get.watch = WatchRegistration{"/n", watch("w"), WatchKind::kData, false};
  dispatcher.sent(std::move(get));
  dispatcher.dispatch(reply_frame(1, 10, Error::kOk));
  dispatcher.sent(request(2));
  // The server sends the notification, then the reply of the later request.
  EXPECT_EQ(dispatcher.dispatch(notification(EventType::kNodeDataChanged, "/app/n")),
            Route::kNotification);
  dispatcher.dispatch(reply_frame(2, 11, Error::kOk));
  // A second change finds no watch: one-shot.
  dispatcher.dispatch(notification(EventType::kNodeDataChanged, "/app/n"));
  EXPECT_EQ(log,
            (std::vector<std::string>{"reply:1:0", "watch:w:NodeDataChanged:/n", "reply:2:0"}));
}

TEST_F(DispatcherTest, FailedGetDataRegistersNoWatch) {
  SentRequest get = request(1);
  get.watch = WatchRegistration{"/n", watch("w"), WatchKind::kData, false};
  dispatcher.sent(std::move(get));
  dispatcher.dispatch(reply_frame(1, 10, Error::kNoNode));
  EXPECT_TRUE(dispatcher.watches().empty());
}

// A reply too long to read: its header completes the request it answers
// with REPLYTOOLARGE, registering no watch, and the zxid counts; the next
// reply is matched as usual. A notification cannot be skipped so.
TEST_F(DispatcherTest, OversizedReplyFailsItsRequestAlone) {
  SentRequest children = request(1, OpCode::kGetChildren);
  children.watch = WatchRegistration{"/n", watch("w"), WatchKind::kChild, false};
  dispatcher.sent(std::move(children));
  dispatcher.sent(request(2));
  EXPECT_EQ(dispatcher.dispatch_oversized(reply_frame(1, 12, Error::kOk)), Route::kReply);
  EXPECT_EQ(dispatcher.dispatch(reply_frame(2, 12, Error::kOk)), Route::kReply);
  EXPECT_EQ(
      log, (std::vector<std::string>{
               "reply:1:" + std::to_string(static_cast<int>(Error::kReplyTooLarge)), "reply:2:0"}));
  EXPECT_TRUE(dispatcher.watches().empty());
  EXPECT_EQ(dispatcher.last_zxid_seen(), 12);
  EXPECT_EQ(dispatcher.dispatch_oversized(reply_frame(zk::wire::kNotificationXid, -1, Error::kOk)),
            Route::kMalformed);
  EXPECT_EQ(dispatcher.dispatch_oversized(reply_frame(7, 13, Error::kOk)), Route::kOutOfOrder);
}

TEST_F(DispatcherTest, ExistsOnMissingNodeSetsExistWatch) {
  SentRequest exists = request(1, OpCode::kExists);
  exists.watch = WatchRegistration{"/n", watch("e"), WatchKind::kData, true};
  dispatcher.sent(std::move(exists));
  dispatcher.dispatch(reply_frame(1, 10, Error::kNoNode));
  EXPECT_EQ(dispatcher.watches().paths(WatchKind::kExist), (std::vector<std::string>{"/n"}));
  dispatcher.dispatch(notification(EventType::kNodeCreated, "/app/n"));
  EXPECT_EQ(log.back(), "watch:e:NodeCreated:/n");
  EXPECT_TRUE(dispatcher.watches().empty());
}

TEST_F(DispatcherTest, EventsRouteToTheRightTables) {
  dispatcher.watches().add(WatchKind::kChild, "/", watch("root-children"));
  dispatcher.watches().add(WatchKind::kData, "/p", watch("p-data"));
  dispatcher.watches().add(WatchKind::kChild, "/p", watch("p-children"));
  // Children of the chroot: the server path is the chroot itself.
  dispatcher.dispatch(notification(EventType::kNodeChildrenChanged, "/app"));
  dispatcher.dispatch(notification(EventType::kNodeDeleted, "/app/p"));
  EXPECT_EQ(log, (std::vector<std::string>{"watch:root-children:NodeChildrenChanged:/",
                                           "watch:p-data:NodeDeleted:/p",
                                           "watch:p-children:NodeDeleted:/p"}));
  EXPECT_TRUE(dispatcher.watches().empty());
}

TEST_F(DispatcherTest, FailOutstandingCompletesEveryRequestWithTheError) {
  SentRequest get = request(1);
  get.watch = WatchRegistration{"/n", watch("w"), WatchKind::kData, false};
  dispatcher.sent(std::move(get));
  dispatcher.sent(request(2));
  dispatcher.fail_outstanding(Error::kConnectionLoss);
  EXPECT_EQ(log, (std::vector<std::string>{"reply:1:-4", "reply:2:-4"}));
  EXPECT_EQ(dispatcher.outstanding(), 0u);
  EXPECT_TRUE(dispatcher.watches().empty());
}

TEST(WatchRegistryTest, TakeAllEmptiesEveryTable) {
  WatchRegistry registry;
  int fired = 0;
  registry.add(WatchKind::kData, "/a", [&](const WatchedEvent&) { ++fired; });
  registry.add(WatchKind::kExist, "/b", [&](const WatchedEvent&) { ++fired; });
  registry.add(WatchKind::kChild, "/a", [&](const WatchedEvent&) { ++fired; });
  EXPECT_EQ(registry.size(), 3u);
  auto all = registry.take_all();
  ASSERT_EQ(all.size(), 3u);
  for (auto& [path, cb] : all) cb(WatchedEvent{});
  EXPECT_EQ(fired, 3);
  EXPECT_TRUE(registry.empty());
}

}  // namespace
}  // namespace zk::client
