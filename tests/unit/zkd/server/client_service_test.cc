// SPDX-License-Identifier: Apache-2.0
// The client service of a whole standalone Server, without a socket: the
// server runs on the in-memory Env and its simulated time, started with
// Listeners::kNone, and each client is a connection of the test's own that
// hands frames to Server::client_handler() and keeps what it is sent. So a
// session's expiry, a watch, a reply's order are checked as a client sees
// them, and time moves only when the test moves it: no test waits out a
// session timeout.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "tests/common/request_bodies.h"
#include "tests/common/run_until.h"
#include "zkd/net/client_connection.h"
#include "zkd/server/config.h"
#include "zkd/server/server.h"
#include "zkd/storage/memory_env.h"

namespace zkd::server {
namespace {

using std::chrono::milliseconds;
using zk::wire::Error;
using zk::wire::OpCode;

// A connection without a socket. What the server sends is kept, payloads
// only; close() ends it as a TCP connection does: the handler hears of it
// once, after the call, on the state thread.
class TestConnection final : public net::ClientConnection {
 public:
  TestConnection(boost::asio::io_context& io, net::ConnectionHandler& handler, net::ConnectionId id)
      : ClientConnection(
            id, {boost::asio::ip::make_address("127.0.0.1"), static_cast<uint16_t>(40000 + id)}),
        io_(io),
        handler_(handler) {}

  void send(std::string bytes) override {
    if (!open_) return;
    ++packets_sent_;
    sent.push_back(bytes.substr(4));
  }
  void close_after_flush() override { close(); }
  void close() override {
    if (!open_) return;
    open_ = false;
    boost::asio::post(io_, [self = shared_from_this(), this] { handler_.closed(*this); });
  }
  void mark_established() override { established = true; }
  void hold_handshake(milliseconds, std::string) override {}
  void resume_reading() override {}
  bool secure() const override { return false; }
  const std::string& peer_certificate_subject() const override { return subject_; }
  bool accepting_sends() const override { return open_; }
  size_t queued() const override { return 0; }

  // The client sends one frame's payload.
  void receive(const std::string& payload) {
    ++packets_received_;
    handler_.frame(*this, payload);
  }

  std::deque<std::string> sent;
  bool established = false;

 private:
  boost::asio::io_context& io_;
  net::ConnectionHandler& handler_;
  bool open_ = true;
  std::string subject_;
};

class ClientServiceTest : public ::testing::Test {
 protected:
  // tickTime 100 ms: session timeouts from 200 to 2,000 ms.
  ClientServiceTest() {
    auto parsed = parse_config(
        "tickTime=100\ndataDir=/data\nclientPort=2181\nadmin.enableServer=false\n"
        "4lw.commands.whitelist=ruok,stat\n",
        "zoo.cfg");
    EXPECT_TRUE(parsed.config) << parsed.error;
    server_.emplace(io_, *parsed.config, env_, 7);
    auto opened = server_->open_storage();
    EXPECT_TRUE(opened.ok()) << opened.message();
    EXPECT_FALSE(server_->start(Server::Listeners::kNone));
  }
  ~ClientServiceTest() override {
    server_->stop();
    io_.poll();
  }

  std::shared_ptr<TestConnection> open() {
    auto connection = std::make_shared<TestConnection>(io_, server_->client_handler(), ++ids_);
    server_->client_handler().opened(connection);
    return connection;
  }

  // Runs the state thread until `done` holds (run_until.h); simulated time
  // stands still.
  bool run_until(const std::function<bool()>& done) { return zk::test::run_until(io_, done); }
  // Moves simulated time on by `by`, `step` at a time, letting the state
  // thread finish what each step started (an expiry's closeSession).
  void advance(milliseconds by, milliseconds step = milliseconds(50)) {
    for (milliseconds done{0}; done < by; done += step) {
      env_.time().advance(step);
      settle();
    }
  }
  // Runs the state thread until nothing is left to do now: every write
  // handed to the log thread has come back.
  void settle() {
    run_until([&] {
      if (io_.stopped()) io_.restart();
      return io_.poll() == 0 && server_->writes_pending() == 0;
    });
  }

  // A new session: the ConnectRequest's reply, once it came.
  zk::wire::ConnectResponse connect(TestConnection& c, int32_t timeout_ms) {
    zk::wire::ConnectRequest request;
    request.timeout_ms = timeout_ms;
    c.receive(zk::wire::encode(request));
    EXPECT_TRUE(run_until([&] { return !c.sent.empty(); }));
    zk::wire::ConnectResponse response;
    if (!c.sent.empty()) {
      EXPECT_TRUE(zk::wire::decode(c.sent.front(), response));
      c.sent.pop_front();
    }
    return response;
  }
  void send(TestConnection& c, int32_t xid, OpCode op, const std::string& body) {
    c.receive(zk::wire::encode(zk::wire::RequestHeader{xid, op}) + body);
  }
  // The next frame the connection was sent, waited for: its header and body.
  std::pair<zk::wire::ReplyHeader, std::string> next(TestConnection& c) {
    EXPECT_TRUE(run_until([&] { return !c.sent.empty(); }));
    if (c.sent.empty()) return {};
    std::string frame = std::move(c.sent.front());
    c.sent.pop_front();
    zk::wire::ReplyHeader header;
    EXPECT_TRUE(zk::wire::decode(frame, header));
    return {header, frame.substr(zk::wire::kReplyHeaderSize)};
  }
  Error exists(TestConnection& c, const std::string& path) {
    send(c, 900, OpCode::kExists, zk::test::path_body(path));
    return next(c).first.err;
  }

  boost::asio::io_context io_;
  storage::MemoryEnv env_;
  std::optional<Server> server_;
  net::ConnectionId ids_ = 0;
};

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
