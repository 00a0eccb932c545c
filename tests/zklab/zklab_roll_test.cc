// SPDX-License-Identifier: Apache-2.0
// `zklab roll` and `zklab transfer` as a user runs them: the real zklab
// binary on a real lab of zkd daemons; what it printed and wrote, and the lab
// afterwards. No timing is
// asserted: the write gap is a figure (docs/benchmarks.md), not a test.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>
#include <vector>

#include "tests/zklab/zklab_test_util.h"

namespace {

using namespace std::chrono_literals;
using zk::lab::testing::describe;
using zk::lab::testing::Outcome;
using zk::lab::testing::read_file;
using zk::lab::testing::Status;

class ZklabRollTest : public zk::lab::testing::ZklabFixture,
                      public ::testing::WithParamInterface<bool> {};

TEST_P(ZklabRollTest, RestartsEveryNodeTheLeaderLastAndLosesNoSession) {
  const bool kill = GetParam();
  const std::string leader = up_and_leader();
  ASSERT_FALSE(leader.empty());

  std::vector<std::string> args = {"roll", "--settle", "0.5"};
  if (kill) args.push_back("--kill");
  Outcome run = zklab(args, 120s);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find(kill ? "SIGKILL and start" : "SIGTERM and start"), std::string::npos)
      << run.output;
  // Each node once, the leader last.
  std::vector<std::string> restarted;
  const std::regex line("restarted node (\\d)( \\(leader\\))?, serving again after \\d+ ms");
  for (auto it = std::sregex_iterator(run.output.begin(), run.output.end(), line);
       it != std::sregex_iterator(); ++it) {
    restarted.push_back((*it)[1].str() + ((*it)[2].matched ? "L" : ""));
  }
  ASSERT_EQ(restarted.size(), 3u) << run.output;
  EXPECT_EQ(restarted.back(), leader + "L") << run.output;
  // Its leadership was handed over first (ydld).
  EXPECT_TRUE(std::regex_search(
      run.output, std::regex("leadership moved from node " + leader + " to node \\d in \\d+ ms")))
      << run.output;
  EXPECT_EQ(restarted[0].size(), 1u) << run.output;  // not the leader
  EXPECT_EQ(restarted[1].size(), 1u) << run.output;
  EXPECT_NE(restarted[0], restarted[1]) << run.output;
  EXPECT_TRUE(
      std::regex_search(run.output, std::regex("longest gap between successful writes: \\d+ ms")))
      << run.output;
  EXPECT_NE(run.output.find("sessions lost: 0\n"), std::string::npos) << run.output;
  EXPECT_TRUE(std::regex_search(run.output, std::regex("requests: [1-9]\\d* writes")))
      << run.output;

  // Every node serves again, under a new leader.
  Status after = status().value_or(Status{});
  int leaders = 0;
  for (int id = 1; id <= 3; ++id) {
    EXPECT_TRUE(after[id].alive) << describe(after);
    EXPECT_TRUE(after[id].role == "follower" || after[id].role == "leader") << describe(after);
    if (after[id].role == "leader") ++leaders;
  }
  EXPECT_EQ(leaders, 1) << describe(after);
  EXPECT_NE(after[std::stoi(leader)].role, "leader") << describe(after);

  const std::string csv = read_file(lab_ / "roll.csv");
  EXPECT_EQ(csv.rfind("time_s,reads,writes,errors,", 0), 0u) << csv.substr(0, 200);
  const std::string svg = read_file(lab_ / "roll.svg");
  EXPECT_NE(svg.find(std::string(kill ? "kill" : "restart") + " node " + leader),
            std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Restarts, ZklabRollTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Kill" : "Graceful"; });

class ZklabTransferTest : public zk::lab::testing::ZklabFixture {};

TEST_F(ZklabTransferTest, TheLeaderHandsOverToAFollowerAndNoSessionIsLost) {
  const std::string leader = up_and_leader();
  ASSERT_FALSE(leader.empty());
  std::smatch m;

  Outcome run = zklab({"transfer", "--settle", "0.3"}, 120s);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  ASSERT_TRUE(std::regex_search(
      run.output, m, std::regex("leadership moved from node " + leader + " to node (\\d) in")))
      << run.output;
  const std::string next = m[1].str();
  EXPECT_NE(next, leader);
  EXPECT_NE(run.output.find("sessions lost: 0\n"), std::string::npos) << run.output;
  EXPECT_TRUE(std::regex_search(run.output, std::regex("requests: [1-9]\\d* writes")))
      << run.output;

  // The new leader leads; the old one follows it, nothing was restarted.
  Status after = status().value_or(Status{});
  EXPECT_EQ(after[std::stoi(next)].role, "leader") << describe(after);
  EXPECT_EQ(after[std::stoi(leader)].role, "follower") << describe(after);
  EXPECT_NE(read_file(lab_ / "transfer.svg").find("transfer node " + leader), std::string::npos);

  // --to N: node N asks to lead (rqld) and leads; here the old leader.
  run = zklab({"transfer", "--to", leader, "--settle", "0.2"}, 120s);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("leadership moved from node " + next + " to node " + leader + " in"),
            std::string::npos)
      << run.output;
  after = status().value_or(Status{});
  EXPECT_EQ(after[std::stoi(leader)].role, "leader") << describe(after);

  // Bad options exit 2.
  EXPECT_EQ(zklab({"transfer", "--clients", "0"}, 30s).exit_code, 2);
  EXPECT_EQ(zklab({"transfer", "--settle", "-1"}, 30s).exit_code, 2);
  EXPECT_EQ(zklab({"transfer", "--to", "0"}, 30s).exit_code, 2);
}

class ZklabMembershipTest : public zk::lab::testing::ZklabFixture {};

// `zklab add`, `remove` and `reconfig` as an operator's reconfig requests:
// a new node serves, the leader removed follows without a vote (another
// leads), it
// comes back, and an observer is added.
TEST_F(ZklabMembershipTest, AddsRemovesAndAddsBack) {
  const std::string leader = up_and_leader();
  ASSERT_FALSE(leader.empty());
  Outcome added = zklab({"add"}, 60s);
  ASSERT_EQ(added.exit_code, 0) << added.output;
  EXPECT_NE(added.output.find("node 4 added:\nserver.1="), std::string::npos) << added.output;
  EXPECT_NE(added.output.find("server.4=127.0.0.1:"), std::string::npos) << added.output;
  Status after = status().value_or(Status{});
  EXPECT_EQ(after[4].role, "follower") << describe(after);

  Outcome removed = zklab({"remove", leader}, 60s);
  ASSERT_EQ(removed.exit_code, 0) << removed.output;
  EXPECT_NE(removed.output.find("node " + leader + " removed"), std::string::npos)
      << removed.output;
  EXPECT_EQ(removed.output.find("server." + leader + "="), std::string::npos) << removed.output;
  // It hands leadership over, then follows (a moment later).
  const auto [seen, follows] = wait_status([&](const Status& s) {
    const auto it = s.find(std::stoi(leader));
    return it != s.end() && it->second.role == "follower";
  });
  EXPECT_TRUE(follows) << describe(seen);

  Outcome back = zklab({"add", "--node", leader}, 60s);
  ASSERT_EQ(back.exit_code, 0) << back.output;
  Outcome observer = zklab({"add", "--observer"}, 60s);
  ASSERT_EQ(observer.exit_code, 0) << observer.output;
  EXPECT_NE(observer.output.find("server.5=127.0.0.1:"), std::string::npos) << observer.output;
  EXPECT_NE(observer.output.find(":observer;"), std::string::npos) << observer.output;
  after = status().value_or(Status{});
  int leaders = 0;
  for (int id = 1; id <= 5; ++id) {
    EXPECT_TRUE(after[id].role == "follower" || after[id].role == "leader" ||
                after[id].role == "observer")
        << describe(after);
    if (after[id].role == "leader") ++leaders;
  }
  EXPECT_EQ(leaders, 1) << describe(after);
  EXPECT_EQ(after[5].role, "observer") << describe(after);

  // A member cannot be added again; reconfig without a change is usage.
  EXPECT_EQ(zklab({"add", "--node", "2"}, 30s).exit_code, 1);
  EXPECT_EQ(zklab({"reconfig"}, 30s).exit_code, 2);
  Outcome raw = zklab({"reconfig", "--remove", "5"}, 30s);
  EXPECT_EQ(raw.exit_code, 0) << raw.output;
  EXPECT_EQ(raw.output.find("server.5="), std::string::npos) << raw.output;
}

class ZklabRollOptionsTest : public zk::lab::testing::ZklabFixture {};

TEST_F(ZklabRollOptionsTest, BadOptionsExitTwoAndWithoutALabOne) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"roll", "--settle", "-1"},
                                               {"roll", "--clients", "0"},
                                               {"roll", "--reads", "2"},
                                               {"roll", "--bogus"}}) {
    Outcome r = zklab(args, 30s);
    EXPECT_EQ(r.exit_code, 2) << args[1] << ": " << r.output;
  }
  Outcome r = zklab({"roll"}, 30s);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no lab"), std::string::npos) << r.output;
}

}  // namespace
