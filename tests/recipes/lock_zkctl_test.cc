// SPDX-License-Identifier: Apache-2.0
// `zkctl lock` and `zkctl elect` as users script them, against real zkd:
// five lock processes never overlap (an external check-and-set marker and a
// read-modify-write counter in files) and their fencing tokens increase; a
// lost lock stops the command; signals reach the command; a timeout exits 10;
// on a 3-node ensemble exactly one `zkctl elect` leads, and leadership passes
// on when the leader's process is SIGKILLed or stops.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "recipes/leader_election.h"
#include "tests/recipes/recipe_test_util.h"
#include "zklab/process/ensemble.h"

namespace {

using namespace std::chrono_literals;
using namespace zk::recipes::testing;

std::vector<int64_t> lines_as_numbers(const std::string& text) {
  std::vector<int64_t> out;
  std::istringstream in(text);
  for (int64_t v; in >> v;) out.push_back(v);
  return out;
}

// The critical section every holder runs: a marker directory that a second
// holder would find (mkdir fails), a counter updated by read-modify-write,
// and the holder's fencing token appended.
std::string critical_section(const std::filesystem::path& dir) {
  const std::string d = dir.string();
  return "mkdir '" + d + "/held' 2>/dev/null || echo overlap >> '" + d + "/violations'; " +
         "n=$(cat '" + d + "/counter' 2>/dev/null || echo 0); echo $((n+1)) > '" + d +
         "/counter'; echo \"$ZK_FENCING_TOKEN\" >> '" + d + "/tokens'; rmdir '" + d + "/held'";
}

TEST(ZkctlLock, FiveProcessesNeverHoldTogetherAndTokensIncrease) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  TempDir dir;
  constexpr int kProcesses = 5, kRounds = 8;
  const std::filesystem::path script = dir.path() / "critical_section.sh";
  {
    std::ofstream out(script);
    out << critical_section(dir.path()) << "\n";
  }
  const std::string one_round = "'" + zkctl_binary() + "' -s " + zkd->address() +
                                " lock /mutex -- sh '" + script.string() +
                                "' || echo failed $? >> '" + dir.path().string() + "/failures'";
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcesses; ++p) {
    pids.push_back(spawn({"/bin/sh", "-c",
                          "i=0; while [ $i -lt " + std::to_string(kRounds) + " ]; do " + one_round +
                              "; i=$((i+1)); done"},
                         dir.path() / ("loop" + std::to_string(p) + ".log")));
  }
  for (pid_t pid : pids) {
    auto status = wait_exit(pid, 120s);
    ASSERT_TRUE(status) << "a lock loop did not finish";
    EXPECT_EQ(exit_code(*status), 0);
  }
  EXPECT_EQ(read_text(dir.path() / "violations"), "") << "two holders at once";
  EXPECT_EQ(read_text(dir.path() / "failures"), "");
  EXPECT_EQ(read_text(dir.path() / "counter"), std::to_string(kProcesses * kRounds) + "\n");
  const auto tokens = lines_as_numbers(read_text(dir.path() / "tokens"));
  ASSERT_EQ(tokens.size(), static_cast<size_t>(kProcesses * kRounds));
  EXPECT_TRUE(std::adjacent_find(tokens.begin(), tokens.end(), std::greater_equal<int64_t>()) ==
              tokens.end())
      << "fencing tokens must increase from one holder to the next";
}

TEST(ZkctlLock, ALostLockStopsTheCommandAndSignalsReachIt) {
  auto zkd = start_zkd(recipe_zkd());
  ASSERT_TRUE(zkd);
  TempDir dir;
  auto admin = connect(zkd->address());
  ASSERT_TRUE(admin);
  const std::string d = dir.path().string();

  // Loss: an operator deletes the lock node; the command is stopped (SIGTERM).
  const pid_t lost = spawn({zkctl_binary(), "-s", zkd->address(), "lock", "/lost", "--", "sh", "-c",
                            "trap 'echo stopped > \"" + d + "/stopped\"; exit 0' TERM; touch '" +
                                d + "/started'; while :; do sleep 0.05; done"},
                           dir.path() / "lost.log");
  ASSERT_TRUE(wait_until([&] { return std::filesystem::exists(dir.path() / "started"); }, 20s));
  auto names = admin->get_children("/lost");
  ASSERT_TRUE(names.ok());
  ASSERT_EQ(names->size(), 1u);
  ASSERT_TRUE(admin->remove("/lost/" + names->front()).ok());
  auto status = wait_exit(lost, 20s);
  ASSERT_TRUE(status);
  EXPECT_EQ(exit_code(*status), 1);
  EXPECT_EQ(read_text(dir.path() / "stopped"), "stopped\n");
  EXPECT_NE(read_text(dir.path() / "lost.log").find("lock lost"), std::string::npos)
      << read_text(dir.path() / "lost.log");

  // A waiting lock with --timeout gives up with 10 while another holds.
  const pid_t holder =
      spawn({zkctl_binary(), "-s", zkd->address(), "lock", "/held", "--", "sh", "-c",
             "trap 'exit 7' TERM; touch '" + d + "/holding'; while :; do sleep 0.05; done"},
            dir.path() / "holder.log");
  ASSERT_TRUE(wait_until([&] { return std::filesystem::exists(dir.path() / "holding"); }, 20s));
  const pid_t waiter = spawn(
      {zkctl_binary(), "-s", zkd->address(), "lock", "/held", "--timeout", "300", "--", "true"},
      dir.path() / "waiter.log");
  status = wait_exit(waiter, 20s);
  ASSERT_TRUE(status);
  EXPECT_EQ(exit_code(*status), 10) << read_text(dir.path() / "waiter.log");

  // SIGTERM to zkctl reaches the command; zkctl exits with its status and
  // releases the lock.
  kill(holder, SIGTERM);
  status = wait_exit(holder, 20s);
  ASSERT_TRUE(status);
  EXPECT_EQ(exit_code(*status), 7);
  auto left = admin->get_children("/held");
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());

  // Usage errors exit 2.
  auto usage = zk::lab::run_zkd(zkctl_binary(), {"-s", zkd->address(), "lock", "/x"}, 20s);
  EXPECT_EQ(exit_code(usage.status), 2) << usage.output;
  usage = zk::lab::run_zkd(zkctl_binary(), {"-s", zkd->address(), "elect", "/x"}, 20s);
  EXPECT_EQ(exit_code(usage.status), 2) << usage.output;
}

// The "leader ID NODE TOKEN" line in a candidate's log, if any.
struct LeaderLine {
  std::string node;
  int64_t token = 0;
};
std::optional<LeaderLine> leader_line(const std::filesystem::path& log) {
  std::istringstream in(read_text(log));
  for (std::string word, id; in >> word;) {
    if (word != "leader") continue;
    LeaderLine line;
    in >> id >> line.node >> line.token;
    return line;
  }
  return std::nullopt;
}

TEST(ZkctlElect, OneLeaderAtATimeOnAnEnsembleAndHandoverWhenTheLeaderDies) {
  auto started = start_ensemble();
  ASSERT_TRUE(started);
  auto& ensemble = *started;
  TempDir dir;
  const std::vector<std::string> ids = {"c1", "c2", "c3"};
  std::map<std::string, pid_t> pids;
  for (const auto& id : ids) {
    pids[id] = spawn({zkctl_binary(), "-s", ensemble.connect_string(), "--timeout", "2000", "elect",
                      "/election", "--id", id},
                     dir.path() / (id + ".log"));
  }
  auto admin = connect(ensemble.connect_string());
  ASSERT_TRUE(admin);
  auto leaders = [&] {
    std::vector<std::string> out;
    for (const auto& id : ids) {
      if (pids.count(id) && leader_line(dir.path() / (id + ".log"))) out.push_back(id);
    }
    return out;
  };
  ASSERT_TRUE(wait_until(
      [&] {
        auto c = admin->get_children("/election");
        return c.ok() && c->size() == 3 && leaders().size() == 1;
      },
      30s));
  const std::string first = leaders().front();
  auto named = zk::recipes::LeaderElection::leader_id(*admin, "/election");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(*named, std::optional<std::string>(first));
  const int64_t first_token = leader_line(dir.path() / (first + ".log"))->token;

  // SIGKILL: no goodbye; the next candidate leads once the session expires.
  kill(pids[first], SIGKILL);
  ASSERT_TRUE(wait_exit(pids[first], 10s));
  pids.erase(first);
  ASSERT_TRUE(wait_until([&] { return leaders().size() == 1; }, 30s));
  const std::string second = leaders().front();
  EXPECT_EQ(leaders().size(), 1u) << "two leaders at once";
  EXPECT_GT(leader_line(dir.path() / (second + ".log"))->token, first_token);
  named = zk::recipes::LeaderElection::leader_id(*admin, "/election");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(*named, std::optional<std::string>(second));

  // SIGTERM: the leader steps down (exit 0) and hands over at once.
  kill(pids[second], SIGTERM);
  auto status = wait_exit(pids[second], 10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(exit_code(*status), 0);
  pids.erase(second);
  ASSERT_TRUE(wait_until([&] { return leaders().size() == 1; }, 30s));
  const std::string third = leaders().front();
  kill(pids[third], SIGTERM);
  status = wait_exit(pids[third], 10s);
  ASSERT_TRUE(status);
  EXPECT_EQ(exit_code(*status), 0);
  auto left = admin->get_children("/election");
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());
}

}  // namespace
