// SPDX-License-Identifier: Apache-2.0
// Read-only mode (readonlymode.enabled) on a real 3-node ensemble, checked
// on the wire with a raw client: a replica cut off from its quorum (its two
// peers killed) says isro "ro" and Mode: read-only; it takes a client that
// allows a read-only server (the ConnectRequest's readOnly byte) with
// readOnly set in its ConnectResponse, new or resumed session alike (Apache
// resumes none); reads
// work, writes and sync get NOTREADONLY; a client that does not allow it is
// closed without a session; once the quorum is back the read-only
// connections are closed and isro says "rw".
//
// Both flavours get the flag the way Apache's operators pass it,
// -Dreadonlymode.enabled=true (zkd reads it from SERVER_JVMFLAGS).
// ZK_ENSEMBLE_FLAVOUR=apache runs the same test against Apache ZooKeeper 3.8.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "libzk/client/sync_client.h"
#include "tests/lab/lab_test_util.h"
#include "tests/lab/raw_client.h"
#include "toolkit/poll_until.h"
#include "zklab/process/ensemble.h"
#include "zklab/process/four_letter_word.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using zk::wire::Error;
using zk::wire::OpCode;

constexpr auto kModeDeadline = 30s;  // for read-only mode to start or end
constexpr auto kServeDeadline = 30s;
constexpr auto kPoll = 50ms;  // between two looks at a node's isro

class ReadOnlyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EnsembleOptions options = flavoured_ensemble_options();
    options.java_flags.push_back("-Dreadonlymode.enabled=true");
    options.environment.push_back("SERVER_JVMFLAGS=-Dreadonlymode.enabled=true");
    // Apache 3.8 creates a session in read-only mode only as a local one:
    // without this its answer to a new session is a bare NOTREADONLY reply
    // header, which no client can read. zkd's read-only sessions are local
    // anyway.
    if (options.flavour == Flavour::kApache)
      options.extra_lines.push_back("localSessionsEnabled=true");
    options.temp_dir_prefix = "zk_read_only_test";
    auto started = Ensemble::start(options);
    ASSERT_TRUE(started.ensemble) << started.error;
    ensemble_ = std::move(started.ensemble);
  }

  void TearDown() override { keep_if_failed(ensemble_.get(), HasFailure()); }

  std::optional<std::string> word(int id, const char* w) {
    return four_letter_word(ensemble_->node(id).host(), ensemble_->node(id).port(), w, 5s);
  }

  // Polls node `id`'s isro until it answers `expected`; its last answer.
  std::string wait_isro(int id, const std::string& expected) {
    std::string last;
    zk::toolkit::poll_until(
        [&] {
          last = word(id, "isro").value_or("<no answer>");
          return last == expected;
        },
        kModeDeadline, kPoll);
    return last;
  }

  std::optional<Session> connect(int id, zk::wire::ConnectRequest request) {
    return open_session(ensemble_->node(id).host(), ensemble_->node(id).port(), request);
  }

  std::unique_ptr<Ensemble> ensemble_;
};

zk::wire::ConnectRequest read_only_request() {
  auto request = new_session_request(30000);
  request.read_only = true;
  return request;
}

TEST_F(ReadOnlyTest, AReplicaWithoutQuorumServesReadsUntilTheQuorumReturns) {
  const int survivor = 1;
  // A node to read and a session to resume, made while the ensemble serves.
  auto rw = connect(survivor, new_session_request(30000));
  ASSERT_TRUE(rw);
  ASSERT_EQ(call(rw->connection, 1, OpCode::kCreate, create_body("/ro", "hello")).header.err,
            Error::kOk);
  const auto known = rw->response;
  rw.reset();  // the connection closes; the session lives on
  EXPECT_EQ(wait_isro(survivor, "rw"), "rw");

  ASSERT_TRUE(ensemble_->kill(2));
  ASSERT_TRUE(ensemble_->kill(3));
  ASSERT_EQ(wait_isro(survivor, "ro"), "ro") << ensemble_->logs();
  EXPECT_NE(word(survivor, "srvr").value_or("").find("Mode: read-only"), std::string::npos);

  // A new session, served read-only.
  auto ro = connect(survivor, read_only_request());
  ASSERT_TRUE(ro) << "no read-only session";
  EXPECT_TRUE(ro->response.read_only);
  EXPECT_NE(ro->response.session_id, 0);
  auto data = call(ro->connection, 1, OpCode::kGetData, path_body("/ro"));
  ASSERT_EQ(data.header.err, Error::kOk);
  zk::wire::GetDataResponse got;
  ASSERT_TRUE(zk::wire::decode(data.body, got));
  EXPECT_EQ(got.data, std::string("hello"));
  EXPECT_EQ(call(ro->connection, 2, OpCode::kCreate, create_body("/x", "")).header.err,
            Error::kNotReadOnly);
  EXPECT_EQ(call(ro->connection, 3, OpCode::kSync, path_body("/ro")).header.err,
            Error::kNotReadOnly);
  EXPECT_EQ(call(ro->connection, 4, OpCode::kExists, path_body("/ro")).header.err, Error::kOk);

  // The session made before, resumed read-only.
  auto request = read_only_request();
  request.session_id = known.session_id;
  request.passwd = known.passwd;
  auto resumed = connect(survivor, request);
  if (ensemble_->flavour() == Flavour::kApache) {
    // Apache 3.8 resumes none: a global session's connection is closed
    // ("Refusing global session reconnection in RO mode"), this one (made
    // local, then global) is answered as expired. zkd differs on purpose:
    // the client reads on under its session.
    EXPECT_TRUE(!resumed || resumed->response.timeout_ms == 0);
    resumed.reset();
  } else {
    ASSERT_TRUE(resumed);
    EXPECT_EQ(resumed->response.session_id, known.session_id);
    EXPECT_TRUE(resumed->response.read_only);
    EXPECT_GT(resumed->response.timeout_ms, 0);
  }

  // A client that does not allow a read-only server gets no session.
  auto rw_only =
      RawConnection::connect(ensemble_->node(survivor).host(), ensemble_->node(survivor).port());
  ASSERT_TRUE(rw_only);
  ASSERT_TRUE(rw_only->send_frame(zk::wire::encode(new_session_request(30000))));
  EXPECT_TRUE(rw_only->closed_without_data(10s));

  // The quorum back: read-only connections end, the replica serves again.
  ASSERT_EQ(ensemble_->restart(2, kServeDeadline), "");
  ASSERT_EQ(ensemble_->restart(3, kServeDeadline), "");
  EXPECT_TRUE(ro->connection.closed_without_data(kModeDeadline));
  if (resumed) {
    EXPECT_TRUE(resumed->connection.closed_without_data(kModeDeadline));
  }
  EXPECT_EQ(wait_isro(survivor, "rw"), "rw");
  auto back = connect(survivor, new_session_request(30000));
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->response.read_only);
  EXPECT_EQ(call(back->connection, 1, OpCode::kCreate, create_body("/after", "")).header.err,
            Error::kOk);
}

}  // namespace
}  // namespace zk::lab
