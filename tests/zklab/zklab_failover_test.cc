// SPDX-License-Identifier: Apache-2.0
// `zklab failover` as a user runs it: the real zklab binary on a real lab of
// zkd daemons in a temporary directory; then what it printed and wrote, and
// the lab afterwards (`zklab status --json`). Also zk::lab::Load on its own,
// against one zkd. No timing is asserted.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/zklab/zklab_test_util.h"
#include "toolkit/poll_until.h"
#include "zklab/load/load.h"
#include "zklab/process/zkd_process.h"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using zk::lab::testing::describe;
using zk::lab::testing::Node;
using zk::lab::testing::Outcome;
using zk::lab::testing::read_file;
using zk::lab::testing::Status;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, sep);) out.push_back(part);
  return out;
}

class ZklabFailoverTest : public zk::lab::testing::ZklabFixture {};

TEST_F(ZklabFailoverTest, KillsAndRestartsTheLeaderAndWritesTheTimeline) {
  const std::string leader = up_and_leader();
  ASSERT_FALSE(leader.empty());
  std::smatch m;

  Outcome run = zklab({"failover", "--duration", "4", "--kill-at", "1", "--restart-at", "2"}, 120s);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(std::regex_search(run.output, m, std::regex("killed node (\\d) \\(leader")))
      << run.output;
  EXPECT_EQ(m[1].str(), leader) << run.output;
  EXPECT_TRUE(std::regex_search(run.output, std::regex("time to new leader: \\d+ ms \\(node \\d")))
      << run.output;
  EXPECT_TRUE(std::regex_search(run.output, std::regex("time to first write: \\d+ ms\n")))
      << run.output;
  EXPECT_TRUE(std::regex_search(run.output, std::regex("time to rejoin: \\d+ ms \\(node " + leader +
                                                       " as (follower|leader)")))
      << run.output;
  EXPECT_TRUE(std::regex_search(run.output, std::regex("before the kill: \\d+ writes/s")))
      << run.output;

  // The old leader is back in the ensemble (a failed status reads as a dead
  // node with no role).
  Status after = status().value_or(Status{});
  const Node old_leader = after[std::stoi(leader)];
  EXPECT_TRUE(old_leader.alive) << describe(after);
  EXPECT_TRUE(old_leader.role == "follower" || old_leader.role == "leader") << describe(after);

  // The CSV: a header, a row per 100 ms (40 for 4 s, more if the rejoin came
  // later), writes before the kill and from the rejoin on.
  const auto csv = split(read_file(lab_ / "failover.csv"), '\n');
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv[0].rfind("time_s,reads,writes,errors,", 0), 0u) << csv[0];
  EXPECT_GE(csv.size(), 41u);
  EXPECT_LE(csv.size(), 41u + 20 * 10);
  int64_t writes_before = 0, writes_after = 0;
  bool killed = false, rejoined = false;
  for (size_t i = 1; i < csv.size(); ++i) {
    const auto fields = split(csv[i], ',');
    ASSERT_GE(fields.size(), 9u) << csv[i];
    killed = killed || csv[i].find("kill node " + leader) != std::string::npos;
    rejoined = rejoined || csv[i].find("rejoin node " + leader) != std::string::npos;
    if (!killed) writes_before += std::stoll(fields[2]);
    if (rejoined) writes_after += std::stoll(fields[2]);
  }
  EXPECT_TRUE(killed);
  EXPECT_TRUE(rejoined);
  EXPECT_GT(writes_before, 0);
  EXPECT_GT(writes_after, 0);

  const std::string svg = read_file(lab_ / "failover.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("<polyline class=\"writes\""), std::string::npos);
  EXPECT_NE(svg.find("kill node " + leader), std::string::npos);
  EXPECT_NE(run.output.find("csv: " + std::filesystem::absolute(lab_ / "failover.csv").string()),
            std::string::npos)
      << run.output;
}

// A leader that is paused or cut off says nothing: the others must notice
// the silence, elect a new leader and serve writes; once back, the old leader
// follows the new one.
class ZklabSilentLeaderTest : public ZklabFailoverTest,
                              public ::testing::WithParamInterface<const char*> {};

TEST_P(ZklabSilentLeaderTest, IsReplacedAndRejoinsAsAFollower) {
  const std::string fault = GetParam();
  const std::string leader = up_and_leader();
  ASSERT_FALSE(leader.empty());
  std::smatch m;

  Outcome run = zklab(
      {"failover", "--fault", fault, "--duration", "4", "--kill-at", "1", "--restart-at", "2.5"},
      120s);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find(fault + " the leader at 1.000 s"), std::string::npos) << run.output;
  EXPECT_TRUE(
      std::regex_search(run.output, m, std::regex("time to new leader: \\d+ ms \\(node (\\d)")))
      << run.output;
  EXPECT_NE(m[1].str(), leader) << run.output;
  EXPECT_TRUE(std::regex_search(run.output, std::regex("time to first write: \\d+ ms\n")))
      << run.output;
  EXPECT_TRUE(std::regex_search(
      run.output, std::regex("time to rejoin: \\d+ ms \\(node " + leader + " as follower")))
      << run.output;
  const std::string svg = read_file(lab_ / "failover.svg");
  EXPECT_NE(svg.find(fault + " node " + leader), std::string::npos);

  Status after = status().value_or(Status{});
  EXPECT_EQ(after[std::stoi(leader)].role, "follower") << describe(after);
}

INSTANTIATE_TEST_SUITE_P(Faults, ZklabSilentLeaderTest, ::testing::Values("pause", "isolate"));

TEST_F(ZklabFailoverTest, BadOptionsExitTwo) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"failover", "--kill-at", "3", "--restart-at", "2"},
        {"failover", "--duration", "3", "--kill-at", "1", "--restart-at", "5"},
        {"failover", "--reads", "1.5"},
        {"failover", "--clients", "0"},
        {"failover", "--fault", "reboot"},
        {"failover", "--bogus"}}) {
    Outcome r = zklab(args, 30s);
    EXPECT_EQ(r.exit_code, 2) << args[1] << ": " << r.output;
  }
}

TEST_F(ZklabFailoverTest, WithoutALabExitsOne) {
  Outcome r = zklab({"failover"}, 30s);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no lab"), std::string::npos) << r.output;
}

// The load engine alone: reads and writes land in the buckets, the mark
// sees the writes sent after it, stop() ends it.
TEST(Load, CountsReadsAndWritesAgainstOneServer) {
  zk::lab::ZkdOptions zo;
  zo.binary = ZKD_BINARY;
  auto started = zk::lab::ZkdProcess::start(zo);
  ASSERT_TRUE(started.process) << started.error;

  zk::lab::LoadOptions lo;
  lo.addresses = {started.process->address()};
  lo.sessions = 3;
  lo.in_flight = 2;
  lo.threads = 2;
  lo.read_ratio = 0.5;
  lo.root = "/load_test";
  zk::lab::Load load(lo);
  ASSERT_EQ(load.connect(), "");
  const auto origin = load.start();
  const auto marked = Clock::now();
  load.mark(marked);
  EXPECT_TRUE(load.wait_all_recovered(Clock::now() + 30s));
  // Wait (deadline 30 s) until both kinds of request have completed.
  zk::toolkit::poll_until(
      [&] {
        const auto t = load.totals();
        return t.reads > 0 && t.writes > 0;
      },
      30s, 10ms);
  load.stop();
  const auto end = Clock::now();
  const auto totals = load.totals();
  EXPECT_GT(totals.reads, 0);
  EXPECT_GT(totals.writes, 0);
  EXPECT_EQ(totals.error_count(), 0);
  EXPECT_TRUE(load.ended().empty());

  const auto buckets = load.buckets(end);
  EXPECT_EQ(buckets.size(), static_cast<size_t>((end - origin) / lo.bucket));
  // Every completion is in a bucket up to the next whole one after the end.
  zk::lab::LoadBucket sum;
  for (const auto& b : load.buckets(end + lo.bucket)) sum += b;
  EXPECT_EQ(sum.reads, totals.reads);
  EXPECT_EQ(sum.writes, totals.writes);

  // The longest gap between writes lies inside the run (two writes at least).
  const auto gap = load.longest_write_gap();
  if (totals.writes >= 2) {
    EXPECT_GT(gap.length.count(), 0);
    EXPECT_GE(gap.ended_at, gap.length);
    EXPECT_LE(gap.ended_at, std::chrono::duration_cast<std::chrono::microseconds>(end - origin));
  }

  const auto recovery = load.recovery();
  ASSERT_TRUE(recovery.first);
  ASSERT_TRUE(recovery.all);
  EXPECT_EQ(recovery.sessions_without, 0);
  EXPECT_GE(*recovery.first, marked);
  EXPECT_LE(*recovery.first, *recovery.all);
}

}  // namespace
