// SPDX-License-Identifier: Apache-2.0
// Whole Servers for unit tests, without a socket. ClientCalls: what a test
// client says to a whole Server through a TestConnection, which hands frames
// to Server::client_handler() and keeps what it is sent.
// WholeServerTest: one standalone Server on the in-memory Env and its
// simulated time, started with Listeners::kNone; time moves only when the
// test moves it (advance()); run_until() waits, with a bound of real time,
// for the log thread's answers. (The replication tests run three Servers on
// tests/sim/server's SimEnsemble with these ClientCalls.)
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
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

// What a socket-less test client (a TestConnection) says to a whole Server
// and how it waits for the answers: the fixture says how it waits
// (run_until: a standalone server's state thread, below, or a simulated
// ensemble's steps, replication_test.cc), these calls say what is sent and
// read. Failures are gtest's non-fatal ones; a missing answer yields an
// empty reply.
class ClientCalls {
 public:
  virtual ~ClientCalls() = default;

  // Runs the server(s) until `done` holds, within the fixture's bound;
  // whether it holds.
  virtual bool run_until(const std::function<bool()>& done) = 0;

  // A new session: the ConnectRequest's reply, once it came.
  zk::wire::ConnectResponse connect(TestConnection& c, int32_t timeout_ms) {
    zk::wire::ConnectRequest request;
    request.timeout_ms = timeout_ms;
    c.receive(zk::wire::encode(request));
    EXPECT_TRUE(run_until([&] { return !c.sent.empty(); })) << "no ConnectResponse";
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
    EXPECT_TRUE(run_until([&] { return !c.sent.empty(); })) << "no reply";
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
  // A persistent node's create, answered: its reply header (zxid, error).
  zk::wire::ReplyHeader create(TestConnection& c, const std::string& path,
                               const std::string& data) {
    send(c, 901, OpCode::kCreate, zk::test::create_body(path, data));
    return next(c).first;
  }
  // A sync of "/", then a read of `path` on the same connection: the data a
  // linearizable read sees, or nullopt when the node is missing or either
  // request failed.
  std::optional<std::string> synced_read(TestConnection& c, const std::string& path) {
    send(c, 902, OpCode::kSync, zk::test::path_body("/"));
    send(c, 903, OpCode::kGetData, zk::test::path_body(path));
    const auto synced = next(c).first;
    EXPECT_EQ(synced.xid, 902);
    const auto [read, body] = next(c);
    EXPECT_EQ(read.xid, 903);
    if (synced.err != Error::kOk || read.err != Error::kOk) return std::nullopt;
    zk::wire::GetDataResponse data;
    EXPECT_TRUE(zk::wire::decode(body, data));
    return data.data.value_or("");
  }
};

class WholeServerTest : public ::testing::Test, protected ClientCalls {
 protected:
  // tickTime 100 ms: session timeouts from 200 to 2,000 ms. preAllocSize
  // 64 KiB: the in-memory disk need not fill 64 MiB on the first write.
  WholeServerTest() {
    auto parsed = parse_config(
        "tickTime=100\ndataDir=/data\nclientPort=2181\nadmin.enableServer=false\n"
        "4lw.commands.whitelist=*\npreAllocSize=64\n",
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
  bool run_until(const std::function<bool()>& done) override {
    return zk::test::run_until(io_, done);
  }
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

  boost::asio::io_context io_;
  storage::MemoryEnv env_;
  std::optional<Server> server_;
  net::ConnectionId ids_ = 0;
};

}  // namespace zkd::server::test_support
