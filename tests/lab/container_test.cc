// SPDX-License-Identifier: Apache-2.0
// Containers and TTL nodes on a 3-node ensemble of real zkd processes (§6.4
// of docs/wire-protocol.md), seen through raw sessions on two followers:
//   * a container goes once its last child went (the leader's container
//     manager deletes it; the follower's watch sees NodeDeleted), while a
//     container that still has a child, and one never used, stay;
//   * a TTL node goes once its TTL passed, while a TTL node with a child stays;
//   * clients see ephemeralOwner 0 for both kinds.
// zoo.cfg: extendedTypesEnabled=true, znode.container.checkIntervalMs=100.
// Nothing is timed: each removal is awaited as a watch event with a deadline.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libzk/wire/multi.h"
#include "tests/lab/lab_test_util.h"
#include "zklab/process/ensemble.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using zk::wire::Error;
using zk::wire::EventType;
using zk::wire::OpCode;

constexpr auto kElectionDeadline = 30s;
constexpr auto kRemovalDeadline = 20s;  // many check intervals, one TTL

std::string ttl_body(const std::string& path, int64_t ttl_ms, int32_t flags = 5) {
  return zk::wire::encode(zk::wire::CreateTTLRequest{path, std::string("t"),
                                                     zk::wire::open_acl_unsafe(), flags, ttl_ms});
}

class ContainerEnsembleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EnsembleOptions options;
    options.zkd_binary = zkd_binary();
    options.voters = 3;
    options.extra_lines = {"extendedTypesEnabled=true", "znode.container.checkIntervalMs=100"};
    options.temp_dir_prefix = "zk_container_test";
    auto started = Ensemble::start(options);
    ASSERT_TRUE(started.ensemble) << started.error;
    ensemble_ = std::move(started.ensemble);
    auto leader = ensemble_->wait_for_leader(kElectionDeadline);
    ASSERT_TRUE(leader);
    for (int id : ensemble_->ids()) {
      if (id != *leader) followers_.push_back(id);
    }
    ASSERT_EQ(followers_.size(), 2u);
    writer_.emplace(connect_session(ensemble_->node(followers_[0])));
    watcher_.emplace(connect_session(ensemble_->node(followers_[1])));
  }

  Reply write(OpCode op, const std::string& body) {
    return call(writer_->connection, ++xid_, op, body);
  }
  // The watcher's follower has applied everything the leader had so far.
  void sync_watcher() {
    EXPECT_EQ(call(watcher_->connection, ++xid_, OpCode::kSync, path_body("/")).header.err,
              Error::kOk);
  }
  // exists on the watcher's follower, leaving a watch.
  Reply watch(const std::string& path) {
    return call(watcher_->connection, ++xid_, OpCode::kExists, path_body(path, true));
  }
  bool exists_on_watcher(const std::string& path) {
    return call(watcher_->connection, ++xid_, OpCode::kExists, path_body(path)).header.err ==
           Error::kOk;
  }
  // Waits for NodeDeleted of `path` on the watcher (within the deadline).
  void expect_deleted(const std::string& path) {
    auto event = read_notification(watcher_->connection, kRemovalDeadline);
    ASSERT_TRUE(event) << "no notification for " << path;
    EXPECT_EQ(event->type, EventType::kNodeDeleted);
    EXPECT_EQ(event->path, path);
  }

  std::unique_ptr<Ensemble> ensemble_;
  std::vector<int> followers_;
  std::optional<Session> writer_;
  std::optional<Session> watcher_;
  int32_t xid_ = 0;
};

TEST_F(ContainerEnsembleTest, ContainerGoesAfterItsLastChildFromAFollowersView) {
  ASSERT_EQ(write(OpCode::kCreateContainer, create_body("/c", "c", 4)).header.err, Error::kOk);
  ASSERT_EQ(write(OpCode::kCreateContainer, create_body("/busy", "b", 4)).header.err, Error::kOk);
  ASSERT_EQ(write(OpCode::kCreateContainer, create_body("/never", "n", 4)).header.err, Error::kOk);
  ASSERT_EQ(write(OpCode::kCreate, create_body("/busy/x", "")).header.err, Error::kOk);
  ASSERT_EQ(write(OpCode::kCreate, create_body("/c/child", "")).header.err, Error::kOk);
  sync_watcher();
  Reply r = watch("/c");
  ASSERT_EQ(r.header.err, Error::kOk);
  zk::wire::Stat stat;
  ASSERT_TRUE(zk::wire::decode(r.body, stat));
  EXPECT_EQ(stat.ephemeral_owner, 0);

  ASSERT_EQ(
      write(OpCode::kDelete, zk::wire::encode(zk::wire::DeleteRequest{"/c/child", -1})).header.err,
      Error::kOk);
  expect_deleted("/c");
  EXPECT_FALSE(exists_on_watcher("/c"));
  // The sweep that took /c looked at these too.
  EXPECT_TRUE(exists_on_watcher("/busy"));
  EXPECT_TRUE(exists_on_watcher("/never"));
}

TEST_F(ContainerEnsembleTest, TtlNodeGoesAfterItsTtlButNotWithAChild) {
  // Born with its child (one multi), so no check finds it expired and empty.
  zk::wire::MultiOp kept{
      OpCode::kCreateTTL,
      zk::wire::CreateTTLRequest{"/kept", std::string(), zk::wire::open_acl_unsafe(), 5, 1}};
  Reply multi =
      write(OpCode::kMulti,
            zk::wire::encode_multi_request({kept, zk::wire::multi_create("/kept/x", "")}));
  ASSERT_EQ(multi.header.err, Error::kOk);
  std::vector<zk::wire::MultiResult> results;
  ASSERT_TRUE(zk::wire::decode_multi_response(multi.body, results));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].type, OpCode::kCreate2);
  EXPECT_EQ(results[1].type, OpCode::kCreate);
  ASSERT_EQ(write(OpCode::kCreateTTL, ttl_body("/t", 500)).header.err, Error::kOk);
  sync_watcher();
  Reply r = watch("/t");
  ASSERT_EQ(r.header.err, Error::kOk);
  zk::wire::Stat stat;
  ASSERT_TRUE(zk::wire::decode(r.body, stat));
  EXPECT_EQ(stat.ephemeral_owner, 0);
  expect_deleted("/t");
  EXPECT_FALSE(exists_on_watcher("/t"));
  EXPECT_TRUE(exists_on_watcher("/kept"));  // expired long ago, but has a child
}

TEST_F(ContainerEnsembleTest, ClientsCannotSendDeleteContainer) {
  ASSERT_EQ(write(OpCode::kCreateContainer, create_body("/c", "c", 4)).header.err, Error::kOk);
  EXPECT_EQ(write(OpCode::kDeleteContainer, "/c").header.err, Error::kBadArguments);
  sync_watcher();
  EXPECT_TRUE(exists_on_watcher("/c"));
}

}  // namespace
}  // namespace zk::lab
