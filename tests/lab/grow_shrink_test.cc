// SPDX-License-Identifier: Apache-2.0
// Issue 42's growth under load, as operators grow an ensemble through
// reconfig: one participant, then 2, 3 and 5, then back to 3, while a client
// writes all along; then a server is made an observer, a participant and an
// observer again; the same steps on zkd and on Apache 3.8. Each joiner is
// started with a zoo.cfg naming the members and the spares as participants
// (zk::lab::Ensemble's spares), syncs as a follower without a vote, and is
// added once it serves (join, then vote). Checked: every acknowledged write
// is on every member at the end, the leader and its epoch never change (no
// election), each step's /zookeeper/config names the members, and a removed
// server follows on without a vote (Apache's non-voting follower).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/lab/lab_test_util.h"
#include "tests/lab/sync_client_util.h"
#include "zklab/process/ensemble.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;

constexpr auto kStepDeadline = 60s;

// Writes /load/w<n> through server 1 (a member throughout) until stopped,
// keeping the paths acknowledged and the epochs their zxids carry.
class Writer {
 public:
  explicit Writer(const std::string& host) : client_(connect_to(host)) {
    if (client_) thread_ = std::thread([this] { run(); });
  }
  ~Writer() { stop(); }
  bool connected() const { return client_ != nullptr; }
  void stop() {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // Blocks until `n` more writes are acknowledged than now (false: not by
  // the step deadline).
  bool wait_for_more(size_t n) {
    const size_t target = count() + n;
    const auto until = std::chrono::steady_clock::now() + kStepDeadline;
    while (count() < target && std::chrono::steady_clock::now() < until) {
      std::unique_lock lock(mu_);
      progress_.wait_for(lock, 100ms);
    }
    return count() >= target;
  }
  size_t count() const {
    std::lock_guard lock(mu_);
    return acked_.size();
  }
  std::vector<std::string> acked() const {
    std::lock_guard lock(mu_);
    return acked_;
  }
  std::set<int64_t> epochs() const {
    std::lock_guard lock(mu_);
    return epochs_;
  }
  std::vector<std::string> failures() const {
    std::lock_guard lock(mu_);
    return failures_;
  }

 private:
  void run() {
    for (int n = 0; !stopping_; ++n) {
      const std::string path = "/load/w" + std::to_string(n);
      auto created = client_->create2(path, std::string("x"));
      std::lock_guard lock(mu_);
      if (created.ok()) {
        acked_.push_back(path);
        epochs_.insert(created->stat.mzxid >> 32);
      } else {
        failures_.push_back(path + ": " + std::string(zk::wire::error_name(created.error())));
      }
      progress_.notify_all();
    }
  }

  std::unique_ptr<zk::client::SyncClient> client_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  std::condition_variable progress_;
  std::vector<std::string> acked_;
  std::set<int64_t> epochs_;
  std::vector<std::string> failures_;
};

// The ids "server.N=" lines of a configuration text name.
std::set<int> member_ids(const std::string& config) {
  std::set<int> ids;
  size_t at = 0;
  while ((at = config.find("server.", at)) != std::string::npos) {
    at += 7;
    ids.insert(std::atoi(config.c_str() + at));
  }
  return ids;
}

void grow_and_shrink(Flavour flavour) {
  EnsembleOptions options = flavoured_ensemble_options();
  options.flavour = flavour;
  options.voters = 1;
  options.spares = 4;
  options.extra_lines = {"reconfigEnabled=true", "skipACL=yes", "standaloneEnabled=false"};
  options.temp_dir_prefix = "zk_grow_shrink_test";
  auto started = Ensemble::start(options);
  ASSERT_TRUE(started.ensemble) << started.error;
  Ensemble& ensemble = *started.ensemble;
  auto admin = connect_to(ensemble.address(1));
  ASSERT_TRUE(admin);
  ASSERT_TRUE(admin->create("/load", std::string()).ok());
  Writer writer(ensemble.address(1));
  ASSERT_TRUE(writer.connected());
  ASSERT_TRUE(writer.wait_for_more(50));

  const auto reconfig = [&](const zk::wire::ReconfigRequest& request) {
    auto done = admin->reconfig(request);
    EXPECT_TRUE(done.ok()) << zk::wire::error_name(done.error()) << "\n" << ensemble.logs();
    return done.ok() ? done->data.value_or("") : std::string();
  };
  std::set<int> members{1};
  for (int id = 2; id <= 5; ++id) {
    ASSERT_EQ(ensemble.start_spare(), "");
    // A joiner serves once it follows, before it is added (join, then vote).
    ASSERT_TRUE(serves_as(ensemble, id, ServerMode::kFollower, kStepDeadline));
    zk::wire::ReconfigRequest add;
    add.joining = ensemble.spare_line(id);
    members.insert(id);
    EXPECT_EQ(member_ids(reconfig(add)), members) << "adding " << id;
    ASSERT_TRUE(writer.wait_for_more(50)) << "writes stopped after adding " << id;
  }
  zk::wire::ReconfigRequest remove;
  remove.leaving = "4,5";
  members = {1, 2, 3};
  EXPECT_EQ(member_ids(reconfig(remove)), members);
  ASSERT_TRUE(writer.wait_for_more(50)) << "writes stopped after removing 4 and 5";
  // 4, following without a vote, is made an observer, a participant and an
  // observer again: one reconfig each.
  const std::string line = ensemble.spare_line(4);  // server.4=127.0.0.1:q:e;127.0.0.1:c
  members.insert(4);
  for (const auto& [part, mode] : {std::pair{"observer", ServerMode::kObserver},
                                   std::pair{"participant", ServerMode::kFollower},
                                   std::pair{"observer", ServerMode::kObserver}}) {
    zk::wire::ReconfigRequest change;
    change.joining = line.substr(0, line.find(';')) + ":" + part + line.substr(line.find(';'));
    const std::string config = reconfig(change);
    EXPECT_NE(config.find(change.joining), std::string::npos) << config;
    EXPECT_TRUE(serves_as(ensemble, 4, mode, kStepDeadline)) << "as " << part;
    ASSERT_TRUE(writer.wait_for_more(50)) << "writes stopped after 4 became " << part;
  }
  writer.stop();

  EXPECT_EQ(writer.failures(), std::vector<std::string>{});
  EXPECT_EQ(writer.epochs().size(), 1u) << "the leader's epoch changed: an election";
  EXPECT_EQ(ensemble.mode(1), ServerMode::kLeader);
  const std::vector<std::string> acked = writer.acked();
  for (int id = 1; id <= 5; ++id) {
    auto client = connect_to(ensemble.address(id), false);
    ASSERT_TRUE(client) << "node " << id;
    ASSERT_TRUE(client->sync("/load").ok()) << "node " << id;
    auto config = client->get_data("/zookeeper/config");
    ASSERT_TRUE(config.ok()) << "node " << id;
    EXPECT_EQ(member_ids(config->data.value_or("")), members) << "node " << id;
    auto children = client->get_children("/load");
    ASSERT_TRUE(children.ok()) << "node " << id;
    const std::set<std::string> held(children->begin(), children->end());
    size_t lost = 0;
    for (const std::string& path : acked) lost += held.contains(path.substr(6)) ? 0 : 1;
    EXPECT_EQ(lost, 0u) << "node " << id << " lacks acknowledged writes of " << acked.size();
  }
  // Removed, 5 follows on without a vote, as Apache's removed servers.
  EXPECT_TRUE(serves_as(ensemble, 5, ServerMode::kFollower, kStepDeadline));
  keep_if_failed(&ensemble, ::testing::Test::HasFailure());
}

class GrowShrinkTest : public ::testing::TestWithParam<Flavour> {};

TEST_P(GrowShrinkTest, OneToFiveAndBackToThreeUnderWritesWithoutAnElection) {
  if (GetParam() == Flavour::kApache && !std::filesystem::exists("/usr/share/java/zookeeper.jar")) {
    GTEST_SKIP() << "Apache ZooKeeper is not installed";
  }
  grow_and_shrink(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Flavours, GrowShrinkTest,
                         ::testing::Values(Flavour::kZkd, Flavour::kApache),
                         [](const auto& info) { return std::string(flavour_name(info.param)); });

}  // namespace
}  // namespace zk::lab
