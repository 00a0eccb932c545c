// SPDX-License-Identifier: Apache-2.0
// A mixed lab as a user runs it (`zklab up --kinds apache,zkd,zkd`): the
// real zklab on one Apache ZooKeeper 3.8 node (Debian's jars, java) and two
// zkd nodes speaking Apache's peer protocol through the relays. A node of
// each kind is killed and started again, then `zklab migrate --to zkd`
// turns the Apache node into a zkd one under load; the kinds it records
// change and a write made afterwards succeeds. A lab of zkd nodes on
// Apache's protocol is migrated to Apache whole, its leader killed between
// the steps. Skipped when Apache ZooKeeper or java is missing.
#include <gtest/gtest.h>

#include <chrono>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "tests/zklab/zklab_test_util.h"
#include "zklab/process/flavour.h"
#include "zklab/process/zkd_process.h"

namespace {

using namespace std::chrono_literals;
using zk::lab::testing::describe;
using zk::lab::testing::Outcome;
using zk::lab::testing::read_file;
using zk::lab::testing::Status;

class ZklabMixedTest : public zk::lab::testing::ZklabFixture {
 protected:
  void SetUp() override {
    if (const std::string missing = zk::lab::apache_missing(); !missing.empty()) {
      GTEST_SKIP() << missing;
    }
    ZklabFixture::SetUp();
  }

  // What n<id>/kind records.
  std::string kind(int id) const {
    std::string k = read_file(lab_ / ("n" + std::to_string(id)) / "kind");
    while (!k.empty() && k.back() == '\n') k.pop_back();
    return k;
  }

  // Every node alive and serving, one of them leading.
  bool whole(const Status& s) const { return zk::lab::testing::serving_under_one_leader(s, 3); }
};

TEST_F(ZklabMixedTest, NodesOfBothKindsRestartAndMigrateToZkdKeepsServing) {
  Outcome up = zklab({"up", "--kinds", "apache,zkd,zkd"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  EXPECT_TRUE(std::regex_search(up.output, std::regex("node 1 \\S+ pid \\d+ \\w+ apache\\n")))
      << up.output;
  EXPECT_NE(up.output.find("quorum and election ports, both ways"), std::string::npos) << up.output;
  EXPECT_EQ(kind(1), "apache");
  EXPECT_EQ(kind(2), "zkd");
  EXPECT_EQ(kind(3), "zkd");
  for (int id = 1; id <= 3; ++id) {
    EXPECT_NE(
        read_file(lab_ / ("n" + std::to_string(id)) / "zoo.cfg").find("zkd.peerProtocol=apache\n"),
        std::string::npos);
  }
  // The Apache node runs java on its zoo.cfg, its pid recorded as zkd's are.
  const std::vector<pid_t> pids = recorded_pids();
  ASSERT_EQ(pids.size(), 3u);
  EXPECT_NE(read_file("/proc/" + std::to_string(pids[0]) + "/cmdline").find("QuorumPeerMain"),
            std::string::npos);
  Outcome status_text = zklab({"status"});
  EXPECT_TRUE(std::regex_search(status_text.output, std::regex("\\n1 +apache ")))
      << status_text.output;

  // A node of each kind killed and started again serves again.
  for (const char* id : {"1", "2"}) {
    Outcome killed = zklab({"kill", id});
    ASSERT_EQ(killed.exit_code, 0) << killed.output;
    Outcome started = zklab({"start", id});
    ASSERT_EQ(started.exit_code, 0) << started.output << read_file(lab_ / "n1" / "zkd.log");
  }
  auto [before, whole_before] = wait_status([this](const Status& s) { return whole(s); });
  ASSERT_TRUE(whole_before) << describe(before);

  Outcome migrate = zklab({"migrate", "--to", "zkd", "--settle", "0.5", "--clients", "4"}, 60s);
  ASSERT_EQ(migrate.exit_code, 0) << migrate.output;
  EXPECT_NE(migrate.output.find("kinds before: 1:apache 2:zkd 3:zkd"), std::string::npos)
      << migrate.output;
  EXPECT_TRUE(std::regex_search(
      migrate.output,
      std::regex("node 1 apache -> zkd, serving again after \\d+ ms; leader node \\d \\(zkd\\); "
                 "longest write gap \\d+ ms")))
      << migrate.output;
  EXPECT_NE(migrate.output.find("migrated: kinds now 1:zkd 2:zkd 3:zkd"), std::string::npos)
      << migrate.output;
  EXPECT_NE(migrate.output.find("sessions lost: 0\n"), std::string::npos) << migrate.output;
  EXPECT_EQ(kind(1), "zkd");
  EXPECT_EQ(read_file(lab_ / "migrate.csv").rfind("time_s,", 0), 0u);

  auto [after, whole_after] = wait_status([this](const Status& s) { return whole(s); });
  ASSERT_TRUE(whole_after) << describe(after);
  // The node that was Apache's now runs zkd, and a write through it succeeds.
  EXPECT_EQ(
      read_file("/proc/" + std::to_string(recorded_pids()[0]) + "/cmdline").find("QuorumPeerMain"),
      std::string::npos);
  auto created =
      zk::lab::run_zkd(ZKCTL_BINARY, {"-s", after[1].address(), "create", "/after", "x"}, 30s);
  EXPECT_EQ(created.status, 0) << created.output;
  auto got = zk::lab::run_zkd(ZKCTL_BINARY, {"-s", after[3].address(), "get", "/after"}, 30s);
  EXPECT_NE(got.output.find("x"), std::string::npos) << got.output;
  expect_clean_down_ = true;
}

TEST_F(ZklabMixedTest, MigrateToApacheWithTheLeaderKilledBetweenSteps) {
  Outcome up = zklab({"up", "--kinds", "zkd,zkd,zkd"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  Outcome migrate = zklab(
      {"migrate", "--to", "apache", "--kill-leader-between", "--settle", "0.5", "--clients", "4"},
      60s);
  ASSERT_EQ(migrate.exit_code, 0) << migrate.output;
  // Three steps of migration, two kills of the leader between them.
  const std::regex step("\\d+\\.\\d+ s: node \\d( \\(leader\\))? zkd -> apache");
  EXPECT_EQ(std::distance(std::sregex_iterator(migrate.output.begin(), migrate.output.end(), step),
                          std::sregex_iterator()),
            3)
      << migrate.output;
  const std::regex kill("killed leader node \\d \\((zkd|apache)\\) and started it again");
  EXPECT_EQ(std::distance(std::sregex_iterator(migrate.output.begin(), migrate.output.end(), kill),
                          std::sregex_iterator()),
            2)
      << migrate.output;
  EXPECT_NE(migrate.output.find("migrated: kinds now 1:apache 2:apache 3:apache"),
            std::string::npos)
      << migrate.output;
  for (int id = 1; id <= 3; ++id) EXPECT_EQ(kind(id), "apache");

  auto [after, whole_after] = wait_status([this](const Status& s) { return whole(s); });
  ASSERT_TRUE(whole_after) << describe(after);
  auto created =
      zk::lab::run_zkd(ZKCTL_BINARY, {"-s", after[2].address(), "create", "/after", "y"}, 30s);
  EXPECT_EQ(created.status, 0) << created.output;
  expect_clean_down_ = true;
}

}  // namespace
