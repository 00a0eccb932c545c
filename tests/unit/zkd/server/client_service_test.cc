// SPDX-License-Identifier: Apache-2.0
// The client service of a whole standalone Server, without a socket: the
// server runs on the in-memory Env and its simulated time, started with
// Listeners::kNone, and each client is a connection of the test's own that
// hands frames to Server::client_handler() and keeps what it is sent. So a
// session's expiry, a watch, a reply's order are checked as a client sees
// them, and time moves only when the test moves it: no test waits out a
// session timeout.
#include <gtest/gtest.h>

#include <string>

#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "tests/common/request_bodies.h"
#include "tests/unit/zkd/server/whole_server.h"

namespace zkd::server {
namespace {

using std::chrono::milliseconds;
using test_support::WholeServerTest;
using zk::wire::Error;
using zk::wire::OpCode;

using ClientServiceTest = WholeServerTest;

TEST_F(ClientServiceTest, ANewSessionGetsAnIdAndTheTimeoutClampedToTwentyTicks) {
  auto c = open();
  auto response = connect(*c, 30000);
  EXPECT_NE(response.session_id, 0);
  EXPECT_EQ(response.timeout_ms, 2000);
  EXPECT_EQ(response.passwd.size(), 16u);
  EXPECT_TRUE(c->established);
}

TEST_F(ClientServiceTest, RequestsAreAnsweredInOrderWithTheirZxids) {
  auto c = open();
  connect(*c, 2000);
  send(*c, 1, OpCode::kCreate, zk::test::create_body("/a", "one"));
  send(*c, 2, OpCode::kGetData, zk::test::path_body("/a"));
  auto [created, created_body] = next(*c);
  auto [read, read_body] = next(*c);
  EXPECT_EQ(created.xid, 1);
  EXPECT_EQ(created.err, Error::kOk);
  EXPECT_EQ(read.xid, 2);
  ASSERT_EQ(read.err, Error::kOk);
  zk::wire::GetDataResponse data;
  ASSERT_TRUE(zk::wire::decode(read_body, data));
  EXPECT_EQ(data.data, "one");
  EXPECT_EQ(data.stat.czxid, created.zxid);
}

TEST_F(ClientServiceTest, AWatchFiresOnAnotherSessionsChange) {
  auto watcher = open();
  auto writer = open();
  connect(*watcher, 2000);
  connect(*writer, 2000);
  send(*writer, 1, OpCode::kCreate, zk::test::create_body("/w", "before"));
  ASSERT_EQ(next(*writer).first.err, Error::kOk);
  send(*watcher, 1, OpCode::kGetData, zk::test::path_body("/w", /*watch=*/true));
  ASSERT_EQ(next(*watcher).first.err, Error::kOk);

  zk::wire::SetDataRequest set;
  set.path = "/w";
  set.data = "after";
  send(*writer, 2, OpCode::kSetData, zk::wire::encode(set));
  ASSERT_EQ(next(*writer).first.err, Error::kOk);
  auto [header, body] = next(*watcher);
  EXPECT_EQ(header.xid, zk::wire::kNotificationXid);
  zk::wire::WatcherEvent event;
  ASSERT_TRUE(zk::wire::decode(body, event));
  EXPECT_EQ(event.type, zk::wire::EventType::kNodeDataChanged);
  EXPECT_EQ(event.path, "/w");
}

// The session's timeout passes in simulated time: the server closes it
// through the log, its ephemeral goes, and its connection is closed.
TEST_F(ClientServiceTest, ASilentSessionExpiresInSimulatedTimeAndItsEphemeralsGo) {
  auto silent = open();
  auto observer = open();
  connect(*silent, 1000);
  connect(*observer, 2000);
  send(*silent, 1, OpCode::kCreate, zk::test::create_body("/owned", "", /*flags=*/1));
  ASSERT_EQ(next(*silent).first.err, Error::kOk);

  advance(milliseconds(600));
  send(*observer, zk::wire::kPingXid, OpCode::kPing, "");
  next(*observer);
  EXPECT_EQ(exists(*observer, "/owned"), Error::kOk);
  EXPECT_TRUE(silent->accepting_sends());

  advance(milliseconds(600));  // past the 1,000 ms timeout (and its tick)
  EXPECT_EQ(exists(*observer, "/owned"), Error::kNoNode);
  EXPECT_FALSE(silent->accepting_sends());
}

TEST_F(ClientServiceTest, ASessionInUseOutlivesItsTimeout) {
  auto c = open();
  connect(*c, 1000);
  send(*c, 1, OpCode::kCreate, zk::test::create_body("/kept", "", /*flags=*/1));
  ASSERT_EQ(next(*c).first.err, Error::kOk);
  for (int i = 0; i < 10; ++i) {  // 5 s of pings every 500 ms
    advance(milliseconds(500));
    send(*c, zk::wire::kPingXid, OpCode::kPing, "");
    EXPECT_EQ(next(*c).first.xid, zk::wire::kPingXid);
  }
  EXPECT_EQ(exists(*c, "/kept"), Error::kOk);
}

TEST_F(ClientServiceTest, AWhitelistedFourLetterWordIsAnswered) {
  auto c = open();
  EXPECT_EQ(server_->client_handler().four_letter_word(*c, "ruok", ""), "imok");
}

}  // namespace
}  // namespace zkd::server
