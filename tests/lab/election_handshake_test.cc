// SPDX-License-Identifier: Apache-2.0
// A replica in election holds a new client's handshake (docs/replication.md,
// "Time"): a client that reaches a follower while it has no leader is
// answered once it serves again, instead of being closed at once (Apache's
// "ZooKeeperServer not running") and sent on to the other servers, a hung
// leader among them. Without a leader within the hold (the peer silence) the
// connection closes.
#include <signal.h>

#include <gtest/gtest.h>

#include "libzk/wire/jute.h"
#include "tests/lab/lab_test_util.h"
#include "tests/lab/raw_client.h"
#include "zklab/process/ensemble.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kServeDeadline = 30s;

std::string connect_request() {
  std::string payload;
  zk::wire::Writer w(payload);
  new_session_request().write(w);
  return payload;
}

class ElectionHandshakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EnsembleOptions options;
    options.zkd_binary = zkd_binary();
    options.temp_dir_prefix = "zk_election_handshake";
    // A 2 s silence (so a 2 s hold): room for the steps below.
    options.sync_limit = 10;
    options.extra_lines = {"zkd.peerTimeoutMs=2000"};
    auto started = Ensemble::start(options);
    ASSERT_TRUE(started.ensemble) << started.error;
    ensemble_ = std::move(started.ensemble);
    auto leader = ensemble_->wait_for_leader(kServeDeadline);
    ASSERT_TRUE(leader);
    paused_ = {*leader};
    for (int id : ensemble_->ids()) {
      if (id != *leader) lone_ = id;  // a follower
    }
    for (int id : ensemble_->ids()) {
      if (id != *leader && id != lone_) paused_.push_back(id);
    }
  }
  void TearDown() override {
    resume();
    if (HasFailure() && ensemble_) {
      ensemble_->keep_directory();
      std::cerr << ensemble_->logs();
    }
  }

  // Pauses every node but `lone_` (the leader among them) and waits until
  // `lone_` no longer serves: it is in election and cannot win one.
  void cut_off_lone_follower() {
    for (int id : paused_) ASSERT_TRUE(ensemble_->node(id).signal(SIGSTOP));
    const auto until = Clock::now() + kServeDeadline;
    ServerMode m = ensemble_->mode(lone_);
    while (m != ServerMode::kNotServing && Clock::now() < until) {
      ensemble_->node(lone_).wait_for_exit(20ms);  // a pause that ends early if it dies
      m = ensemble_->mode(lone_);
    }
    ASSERT_EQ(m, ServerMode::kNotServing) << "node " << lone_ << " still serves alone";
  }
  void resume() {
    if (!ensemble_) return;
    for (int id : paused_) ensemble_->node(id).signal(SIGCONT);
  }

  std::unique_ptr<Ensemble> ensemble_;
  std::vector<int> paused_;
  int lone_ = 0;
};

TEST_F(ElectionHandshakeTest, AHandshakeDuringAnElectionIsAnsweredOnceAQuorumServes) {
  ASSERT_NO_FATAL_FAILURE(cut_off_lone_follower());
  auto conn = RawConnection::connect("127.0.0.1", ensemble_->node(lone_).port());
  ASSERT_TRUE(conn);
  ASSERT_TRUE(conn->send_frame(connect_request()));
  // Java's client sends requests (setWatches, auth) right behind it.
  ASSERT_TRUE(conn->send_request(1, zk::wire::OpCode::kExists, zk::test::path_body("/", false)));
  resume();  // a quorum again: the lone follower rejoins and serves
  auto reply = conn->read_frame(kServeDeadline);
  ASSERT_TRUE(reply) << "the handshake was closed or never answered";
  zk::wire::ConnectResponse response;
  ASSERT_TRUE(zk::wire::decode(*reply, response));
  EXPECT_GT(response.timeout_ms, 0);
  EXPECT_NE(response.session_id, 0);
  // The request behind the handshake is answered after it, in order.
  auto exists = conn->read_frame(kServeDeadline);
  ASSERT_TRUE(exists) << "the request behind the held handshake was not answered";
  auto parsed = parse_reply(*exists);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->header.xid, 1);
  EXPECT_EQ(parsed->header.err, zk::wire::Error::kOk);
}

TEST_F(ElectionHandshakeTest, AHandshakeHeldWithoutAQuorumIsClosedAfterTheHold) {
  ASSERT_NO_FATAL_FAILURE(cut_off_lone_follower());
  auto conn = RawConnection::connect("127.0.0.1", ensemble_->node(lone_).port());
  ASSERT_TRUE(conn);
  ASSERT_TRUE(conn->send_frame(connect_request()));
  EXPECT_TRUE(conn->closed_without_data(kServeDeadline));
  EXPECT_NE(
      ensemble_->node(lone_).log_tail(20000).find("this replica did not serve within 2000 ms"),
      std::string::npos);
}

}  // namespace
}  // namespace zk::lab
