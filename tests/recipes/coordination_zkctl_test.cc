// SPDX-License-Identifier: Apache-2.0
// The coordination verbs of zkctl as separate processes against a 3-node zkd
// ensemble: concurrent `counter incr` ends at the exact sum, `barrier enter`
// releases nobody before the last member joined, `queue put`/`take` hand
// each item to exactly one taker, `config apply`/`wait` and `members`.
// Orderings are checked by zxids, not by time.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "recipes/counter.h"
#include "recipes/group.h"
#include "tests/recipes/recipe_test_util.h"

namespace {

using namespace std::chrono_literals;
using namespace zk::recipes::testing;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

TEST(ZkctlCounter, ConcurrentIncrementsEndAtTheSum) {
  auto ensemble = start_ensemble();
  ASSERT_TRUE(ensemble);
  const std::string servers = ensemble->connect_string();
  constexpr int kProcesses = 5, kIncrements = 8;
  std::vector<std::unique_ptr<ZkctlProcess>> workers;
  for (int p = 0; p < kProcesses; ++p) {
    workers.push_back(ZkctlProcess::shell("for i in 1 2 3 4 5 6 7 8; do \"$ZKCTL\" -s " + servers +
                                          " counter incr /jobs/done || exit 1; done"));
  }
  std::set<std::string> printed;
  for (auto& w : workers) {
    ASSERT_EQ(w->wait(), 0) << w->output();
    for (const auto& line : lines(w->output())) EXPECT_TRUE(printed.insert(line).second) << line;
  }
  // Every increment printed a distinct new value: 1..40.
  std::set<std::string> expected;
  for (int v = 1; v <= kProcesses * kIncrements; ++v) expected.insert(std::to_string(v));
  EXPECT_EQ(printed, expected);
  auto get = ZkctlProcess::zkctl(servers, {"counter", "get", "/jobs/done"});
  ASSERT_EQ(get->wait(), 0);
  EXPECT_EQ(get->output(), std::to_string(kProcesses * kIncrements) + "\n");
  auto by =
      ZkctlProcess::zkctl(servers, {"--json", "counter", "incr", "/jobs/done", "--by", "-40"});
  ASSERT_EQ(by->wait(), 0);
  EXPECT_EQ(by->output(), "{\"format\":2,\"path\":\"/jobs/done\",\"value\":0}\n");
}

TEST(ZkctlBarrier, NobodyPassesEnterBeforeTheLastMemberJoinedAndAllLeave) {
  auto ensemble = start_ensemble();
  ASSERT_TRUE(ensemble);
  const std::string servers = ensemble->connect_string();
  auto zk = connect(servers);
  ASSERT_TRUE(zk->create("/marks", std::string()).ok());
  constexpr int kMembers = 4;
  std::vector<std::unique_ptr<ZkctlProcess>> members;
  for (int m = 0; m < kMembers; ++m) {
    const std::string id = "m" + std::to_string(m);
    // After enter returns, the member leaves a mark whose czxid orders it.
    members.push_back(ZkctlProcess::shell("\"$ZKCTL\" -s " + servers +
                                          " barrier enter /b -n 4 --id " + id +
                                          " && \"$ZKCTL\" -s " + servers + " create /marks/" + id));
    // Start the next member only once this one has joined, so that the
    // earlier ones had every chance to pass too early.
    ASSERT_TRUE(wait_for_node(*zk, "/b/" + id)) << members.back()->output();
  }
  for (auto& m : members) ASSERT_EQ(m->wait(), 0) << m->output();
  auto last = zk->exists("/b/m3");
  ASSERT_TRUE(last.ok() && last->has_value());
  for (int m = 0; m < kMembers; ++m) {
    auto mark = zk->exists("/marks/m" + std::to_string(m));
    ASSERT_TRUE(mark.ok() && mark->has_value()) << m;
    EXPECT_GT((*mark)->czxid, (*last)->czxid) << "member " << m << " passed before m3 joined";
  }
  std::vector<std::unique_ptr<ZkctlProcess>> leaving;
  for (int m = 0; m < kMembers; ++m) {
    leaving.push_back(ZkctlProcess::zkctl(
        servers, {"barrier", "leave", "/b", "-n", "4", "--id", "m" + std::to_string(m)}));
  }
  for (auto& l : leaving) ASSERT_EQ(l->wait(), 0) << l->output();
  auto children = zk->get_children("/b");
  ASSERT_TRUE(children.ok());
  EXPECT_TRUE(children->empty());  // members and ready are gone: ready for the next round
}

TEST(ZkctlQueue, EveryItemIsTakenExactlyOnce) {
  auto ensemble = start_ensemble();
  ASSERT_TRUE(ensemble);
  const std::string servers = ensemble->connect_string();
  constexpr int kProducers = 3, kConsumers = 3, kItems = 8;
  std::vector<std::unique_ptr<ZkctlProcess>> processes;
  for (int p = 0; p < kProducers; ++p) {
    processes.push_back(ZkctlProcess::shell("for i in 1 2 3 4 5 6 7 8; do \"$ZKCTL\" -s " +
                                            servers + " queue put /q p" + std::to_string(p) +
                                            "-$i >/dev/null || exit 1; done"));
  }
  for (int c = 0; c < kConsumers; ++c) {
    processes.push_back(ZkctlProcess::shell("for i in 1 2 3 4 5 6 7 8; do \"$ZKCTL\" -s " +
                                            servers +
                                            " queue take /q --timeout 30000 || exit 1; done"));
  }
  std::multiset<std::string> taken;
  for (size_t i = 0; i < processes.size(); ++i) {
    ASSERT_EQ(processes[i]->wait(), 0) << processes[i]->output();
    if (i >= kProducers) {
      for (const auto& line : lines(processes[i]->output())) taken.insert(line);
    }
  }
  std::multiset<std::string> expected;
  for (int p = 0; p < kProducers; ++p) {
    for (int i = 1; i <= kItems; ++i)
      expected.insert("p" + std::to_string(p) + "-" + std::to_string(i));
  }
  EXPECT_EQ(taken, expected);  // no loss, no duplicate
  auto zk = connect(servers);
  auto left = zk->get_children("/q");
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());
}

TEST(ZkctlConfig, WaitPrintsWhatApplyWrote) {
  auto ensemble = start_ensemble();
  ASSERT_TRUE(ensemble);
  const std::string servers = ensemble->connect_string();
  auto waiter = ZkctlProcess::zkctl(servers, {"settings", "wait", "/cfg", "--timeout", "30000"});
  const auto file = std::filesystem::temp_directory_path() /
                    ("zkctl_config_" + std::to_string(getpid()) + ".txt");
  {
    std::ofstream out(file);
    out << "# service settings\nport=8080\n\nhost = db.example=1\n";
  }
  auto apply = ZkctlProcess::zkctl(servers, {"settings", "apply", "/cfg", file.string()});
  ASSERT_EQ(apply->wait(), 0) << apply->output();
  ASSERT_EQ(waiter->wait(), 0) << waiter->output();
  EXPECT_EQ(waiter->output(), "host= db.example=1\nport=8080\n");
  std::filesystem::remove(file);
  auto bad = ZkctlProcess::zkctl(servers, {"settings", "apply", "/cfg", "/nonexistent/file"});
  EXPECT_EQ(bad->wait(), 2);
  auto usage = ZkctlProcess::zkctl(servers, {"barrier", "enter", "/b"});
  EXPECT_EQ(usage->wait(), 2);  // -n is required
  auto timeout = ZkctlProcess::zkctl(servers, {"queue", "take", "/empty", "--timeout", "0"});
  EXPECT_EQ(timeout->wait(), 10);
}

TEST(ZkctlMembers, AKilledMemberLeavesWhenItsSessionExpires) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  auto zk = connect(zkd->address());
  auto member =
      ZkctlProcess::zkctl(zkd->address(), {"--timeout", "1000", "members", "/grp", "--join", "w1"});
  ASSERT_TRUE(wait_for_node(*zk, "/grp/w1")) << member->output();
  ASSERT_TRUE(zk::recipes::join_group(*zk, "/grp", "lib", "x").ok());
  auto list = ZkctlProcess::zkctl(zkd->address(), {"members", "/grp"});
  ASSERT_EQ(list->wait(), 0);
  EXPECT_EQ(list->output(), "lib\nw1\n");
  ASSERT_EQ(::kill(member->pid(), SIGKILL), 0);
  auto after = zk::recipes::await_membership_change(*zk, "/grp", {"lib", "w1"}, 20s);
  ASSERT_TRUE(after.ok()) << zk::wire::error_name(after.error());
  EXPECT_EQ(*after, (std::vector<zk::recipes::GroupMember>{{"lib", "x"}}));
}

}  // namespace
