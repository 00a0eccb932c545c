// SPDX-License-Identifier: Apache-2.0
// A whole standalone Server for unit tests, without a socket: it runs on the
// in-memory Env and its simulated time, started with Listeners::kNone, and
// each client is a TestConnection that hands frames to
// Server::client_handler() and keeps what it is sent. Time moves only when
// the test moves it (advance()); run_until() waits, with a bound of real
// time, for the log thread's answers.
#pragma once

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
#include "zkd/net/queued_client_connection.h"
#include "zkd/server/config.h"
#include "zkd/server/server.h"
#include "zkd/storage/memory_env.h"

namespace zkd::server::test_support {

using std::chrono::milliseconds;
using zk::wire::Error;
using zk::wire::OpCode;

using TestConnection = net::QueuedClientConnection;

class WholeServerTest : public ::testing::Test {
 protected:
  // tickTime 100 ms: session timeouts from 200 to 2,000 ms.
  WholeServerTest() {
    auto parsed = parse_config(
        "tickTime=100\ndataDir=/data\nclientPort=2181\nadmin.enableServer=false\n"
        "4lw.commands.whitelist=*\n",
        "zoo.cfg");
    EXPECT_TRUE(parsed.config) << parsed.error.message();
    server_.emplace(io_, *parsed.config, Security{}, env_, 7);
    auto opened = server_->open_storage();
    EXPECT_TRUE(opened.ok()) << opened.message();
    EXPECT_FALSE(server_->start(Server::Listeners::kNone));
  }
  ~WholeServerTest() override {
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

}  // namespace zkd::server::test_support
