// SPDX-License-Identifier: Apache-2.0
// zklab as a user runs it: the real zklab binary, run as a process per
// command, starting real zkd daemons in a temporary lab directory. Waits poll
// `zklab status --json` with deadlines.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/zklab/zklab_test_util.h"
#include "toolkit/child_process.h"
#include "zklab/process/zkd_process.h"

namespace {

using namespace std::chrono_literals;
using zk::lab::testing::count_role;
using zk::lab::testing::describe;
using zk::lab::testing::Outcome;
using zk::lab::testing::read_file;
using zk::lab::testing::Status;

class ZklabTest : public zk::lab::testing::ZklabFixture {};

TEST_F(ZklabTest, UpKillLeaderStartDown) {
  Outcome up = zklab({"up", "-n", "3"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(up.output, m, std::regex("connect string: (\\S+)"))) << up.output;
  const std::string connect = m[1].str();

  auto s = status();
  ASSERT_TRUE(s);
  ASSERT_EQ(s->size(), 3u);
  EXPECT_EQ(count_role(*s, "leader"), 1) << describe(*s);
  EXPECT_EQ(count_role(*s, "follower"), 2) << describe(*s);
  const std::vector<pid_t> first_pids = recorded_pids();
  ASSERT_EQ(first_pids.size(), 3u);

  // A second `up` on a running lab refuses.
  Outcome again = zklab({"up"});
  EXPECT_EQ(again.exit_code, 1) << again.output;
  EXPECT_NE(again.output.find("already up"), std::string::npos) << again.output;

  // A write through the printed connect string.
  auto created = zk::lab::run_zkd(ZKCTL_BINARY, {"-s", connect, "create", "/zklab", "hello"}, 30s);
  EXPECT_EQ(created.status, 0) << created.output;
  auto got = zk::lab::run_zkd(ZKCTL_BINARY, {"-s", connect, "get", "/zklab"}, 30s);
  EXPECT_EQ(got.status, 0) << got.output;
  EXPECT_NE(got.output.find("hello"), std::string::npos) << got.output;

  for (const auto& [id, n] : *s) EXPECT_GE(n.epoch, 1) << "node " << id;
  int old_leader = 0;
  for (const auto& [id, n] : *s) {
    if (n.role == "leader") old_leader = id;
  }
  Outcome killed = zklab({"kill", "leader"});
  ASSERT_EQ(killed.exit_code, 0) << killed.output;
  EXPECT_NE(killed.output.find("killed node " + std::to_string(old_leader) + " (leader, pid"),
            std::string::npos)
      << killed.output;

  auto [after_kill, elected] = wait_status([&](const Status& st) {
    return !st.at(old_leader).alive && st.at(old_leader).role == "down" &&
           count_role(st, "leader") == 1 && count_role(st, "follower") == 1;
  });
  EXPECT_TRUE(elected) << describe(after_kill);
  // The relay daemon holds every node's client, peer and admin port for the
  // lab (port_reservation.h), so the killed node's stay free for it.
  EXPECT_NE(zk::lab::testing::read_file(lab_ / "relay.log").find("holding 9 node ports"),
            std::string::npos)
      << zk::lab::testing::read_file(lab_ / "relay.log");
  // The survivors are in a new epoch; serving nodes report their sessions.
  for (const auto& [id, n] : after_kill) {
    if (id == old_leader) continue;
    EXPECT_GT(n.epoch, s->at(id).epoch) << "node " << id;
    EXPECT_GE(n.sessions, 0) << "node " << id;
  }

  Outcome started = zklab({"start", std::to_string(old_leader)});
  ASSERT_EQ(started.exit_code, 0) << started.output;
  EXPECT_NE(started.output.find("started node " + std::to_string(old_leader)), std::string::npos)
      << started.output;
  auto [after_start, serving] = wait_status([&](const Status& st) {
    return st.at(old_leader).alive && count_role(st, "leader") == 1 &&
           count_role(st, "follower") == 2;
  });
  EXPECT_TRUE(serving) << describe(after_start);

  // The data survived the failover.
  got = zk::lab::run_zkd(ZKCTL_BINARY, {"-s", connect, "get", "/zklab"}, 30s);
  EXPECT_NE(got.output.find("hello"), std::string::npos) << got.output;

  Outcome logs = zklab({"logs", std::to_string(old_leader), "-n", "5"});
  EXPECT_EQ(logs.exit_code, 0) << logs.output;
  EXPECT_FALSE(logs.output.empty());

  std::vector<pid_t> pids = recorded_pids();
  pids.insert(pids.end(), first_pids.begin(), first_pids.end());
  Outcome down = zklab({"down"});
  EXPECT_EQ(down.exit_code, 0) << down.output;
  for (pid_t pid : pids) EXPECT_FALSE(runs_in_lab(pid)) << "pid " << pid << " still runs";
  auto final_status = status();
  ASSERT_TRUE(final_status);  // the lab (and its data) is still there
  for (const auto& [id, n] : *final_status) EXPECT_EQ(n.role, "down") << id;

  EXPECT_EQ(zklab({"down", "--wipe"}).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(lab_));
}

TEST_F(ZklabTest, ObserverPauseResumeStopRestart) {
  Outcome up = zklab({"up", "-n", "3", "--observers", "1"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  auto [s, formed] = wait_status([](const Status& st) {
    return st.size() == 4 && count_role(st, "leader") == 1 && count_role(st, "follower") == 2 &&
           st.at(4).role == "observer";
  });
  ASSERT_TRUE(formed) << describe(s);

  // A write through the observer is seen through a voter.
  const std::string observer = s.at(4).address();
  auto created = zk::lab::run_zkd(ZKCTL_BINARY, {"-s", observer, "create", "/obs", "o"}, 30s);
  EXPECT_EQ(created.status, 0) << created.output;

  Outcome paused = zklab({"pause", "4"});
  ASSERT_EQ(paused.exit_code, 0) << paused.output;
  auto [while_paused, shown] =
      wait_status([](const Status& st) { return st.at(4).role == "paused" && st.at(4).alive; });
  EXPECT_TRUE(shown) << describe(while_paused);
  Outcome resumed = zklab({"resume", "4"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  auto [after_resume, back] =
      wait_status([](const Status& st) { return st.at(4).role == "observer"; });
  EXPECT_TRUE(back) << describe(after_resume);

  Outcome stopped = zklab({"stop", "follower"});
  ASSERT_EQ(stopped.exit_code, 0) << stopped.output;
  auto [after_stop, down] = wait_status([](const Status& st) {
    return count_role(st, "down") == 1 && count_role(st, "leader") == 1;
  });
  EXPECT_TRUE(down) << describe(after_stop);

  // restart of the leader: it stops, comes back, and the lab serves again
  // with one leader (the stopped follower stays down).
  Outcome restarted = zklab({"restart", "leader"});
  ASSERT_EQ(restarted.exit_code, 0) << restarted.output;
  auto [after_restart, serving] = wait_status([](const Status& st) {
    return count_role(st, "leader") == 1 && count_role(st, "follower") == 1 &&
           count_role(st, "down") == 1 && st.at(4).role == "observer";
  });
  EXPECT_TRUE(serving) << describe(after_restart);
  int voter = 0;
  for (const auto& [id, n] : after_restart) {
    if (n.role == "leader") voter = id;
  }
  ASSERT_NE(voter, 0);
  auto got =
      zk::lab::run_zkd(ZKCTL_BINARY, {"-s", after_restart.at(voter).address(), "get", "/obs"}, 30s);
  EXPECT_NE(got.output.find("o"), std::string::npos) << got.output;
}

// A lab of one voter is an ensemble of one (standaloneEnabled=false), as
// `zklab up` promises: its node leads, and a write through it succeeds.
TEST_F(ZklabTest, OneNodeLabIsAnEnsembleOfOne) {
  Outcome up = zklab({"up", "-n", "1"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  auto s = status();
  ASSERT_TRUE(s);
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ(count_role(*s, "leader"), 1) << describe(*s);
  auto created =
      zk::lab::run_zkd(ZKCTL_BINARY, {"-s", s->at(1).address(), "create", "/one", "x"}, 30s);
  EXPECT_EQ(created.status, 0) << created.output;
}

// `up --set KEY=VALUE` reaches every node's zoo.cfg, and the nodes act on it.
TEST_F(ZklabTest, UpSetAddsZooCfgLinesThatTheNodesHonour) {
  Outcome up =
      zklab({"up", "-n", "1", "--set", "zkd.peerTimeoutMs=800", "--set", "zkd.quorumSync=true"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  const std::string cfg = read_file(lab_ / "n1" / "zoo.cfg");
  EXPECT_NE(cfg.find("\nzkd.peerTimeoutMs=800\n"), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("\nzkd.quorumSync=true\n"), std::string::npos) << cfg;
  EXPECT_NE(read_file(lab_ / "n1" / "zkd.log").find("a silent peer is given up after 800 ms"),
            std::string::npos);
  auto s = status();
  ASSERT_TRUE(s);
  auto synced = zk::lab::run_zkd(ZKCTL_BINARY, {"-s", s->at(1).address(), "sync", "/"}, 30s);
  EXPECT_EQ(synced.status, 0) << synced.output;
}

TEST_F(ZklabTest, ALockedLabMakesChangesWaitAndFailButNotStatus) {
  Outcome up = zklab({"up", "-n", "3"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  // Another command holds the lab's lock.
  const int fd = ::open((lab_ / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  const std::vector<std::string> kill_one = {"--dir", lab_.string(), "--timeout", "1", "kill", "1"};
  Outcome refused = zklab(kill_one, false);
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_NE(refused.output.find("another zklab command"), std::string::npos) << refused.output;
  auto s = status();  // looking takes no lock
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->at(1).alive) << describe(*s);

  ::close(fd);  // released
  Outcome killed = zklab(kill_one, false);
  EXPECT_EQ(killed.exit_code, 0) << killed.output;
  auto [after, gone] = wait_status([](const Status& st) { return !st.at(1).alive; });
  EXPECT_TRUE(gone) << describe(after);
}

TEST_F(ZklabTest, BadArgumentsExitTwoWithUsage) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{},
                                               {"bogus"},
                                               {"kill"},
                                               {"up", "-n", "x"},
                                               {"up", "--set", "novalue"},
                                               {"status", "--nope"}}) {
    Outcome r = zklab(args, false);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << r.output;
  }
}

TEST_F(ZklabTest, CommandsWithoutALabExitOne) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"status"},
                                               {"down"},
                                               {"kill", "1"},
                                               {"start", "leader"},
                                               {"logs", "1"}}) {
    Outcome r = zklab(args);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("no lab"), std::string::npos) << r.output;
  }
}

// zklab run from `cwd` with `args`, as a user runs it in a shell there (this
// build's zkd, a 20 s timeout, the lab directory as `args` spell it).
Outcome zklab_in(const std::filesystem::path& cwd, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"-c",         "cd \"$1\" && shift && exec \"$@\"",
                                   "sh",         cwd.string(),
                                   ZKLAB_BINARY, "--zkd",
                                   ZKD_BINARY,   "--timeout",
                                   "20"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = zk::lab::run_zkd("/bin/sh", argv, zk::lab::testing::kZklabDeadline);
  Outcome out;
  out.output = r.output;
  if (r.status >= 0 && WIFEXITED(r.status)) out.exit_code = WEXITSTATUS(r.status);
  return out;
}

int count_of(const std::string& text, const std::string& word) {
  int n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

// A lab started with a relative --dir is the lab an absolute path and a
// symbolic link name: its nodes are up through each, and `down` through a
// third spelling stops them.
TEST_F(ZklabTest, EverySpellingOfTheLabDirectoryNamesOneLab) {
  const auto link = dir_ / "link";
  std::filesystem::create_directory_symlink("lab", link);
  Outcome up = zklab_in(dir_, {"--dir", "lab", "up", "-n", "3"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  const std::vector<pid_t> pids = recorded_pids();
  ASSERT_EQ(pids.size(), 3u);

  auto s = status();  // --dir <absolute path>
  ASSERT_TRUE(s);
  EXPECT_EQ(count_role(*s, "leader"), 1) << describe(*s);
  EXPECT_EQ(count_role(*s, "follower"), 2) << describe(*s);

  Outcome linked = zklab_in("/", {"--dir", link.string(), "status", "--json"});
  ASSERT_EQ(linked.exit_code, 0) << linked.output;
  EXPECT_EQ(count_of(linked.output, "\"alive\":true"), 3) << linked.output;
  EXPECT_EQ(count_of(linked.output, "\"role\":\"down\""), 0) << linked.output;
  EXPECT_NE(linked.output.find("\"relay\":\"running\""), std::string::npos) << linked.output;

  Outcome down = zklab_in(dir_, {"--dir", "./link/", "down"});
  EXPECT_EQ(down.exit_code, 0) << down.output;
  EXPECT_EQ(count_of(down.output, "stopped node"), 3) << down.output;
  EXPECT_NE(down.output.find("stopped the relay daemon"), std::string::npos) << down.output;
  for (pid_t pid : pids) EXPECT_FALSE(runs_in_lab(pid)) << "pid " << pid;
}

// A node an older zklab started, with the lab's path as typed (relative to
// its working directory) on its command line, is still found and stopped.
TEST_F(ZklabTest, ANodeStartedWithARelativeLabPathIsFoundByAnyOther) {
  Outcome up = zklab({"up", "-n", "1"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  Outcome stop = zklab({"stop", "1"});
  ASSERT_EQ(stop.exit_code, 0) << stop.output;

  std::string error;
  auto old_style = zk::toolkit::ChildProcess::start(
      {.argv = {"/bin/sh", "-c", "cd \"$1\" && exec \"$2\" --config lab/n1/zoo.cfg", "sh",
                dir_.string(), ZKD_BINARY},
       .log = lab_ / "n1" / "zkd.log",
       .new_session = true},
      error);
  ASSERT_TRUE(old_style) << error;
  {
    std::ofstream pid_file(lab_ / "n1" / "zkd.pid", std::ios::trunc);
    pid_file << old_style->pid() << "\n";
  }
  auto [s, up_again] = wait_status([](const Status& st) {
    return st.count(1) == 1 && st.at(1).alive && st.at(1).role == "leader";
  });
  EXPECT_TRUE(up_again) << describe(s);
  EXPECT_EQ(s[1].pid, old_style->pid());

  Outcome down = zklab({"down"});
  EXPECT_EQ(down.exit_code, 0) << down.output;
  EXPECT_NE(down.output.find("stopped node 1 (pid " + std::to_string(old_style->pid()) + ")"),
            std::string::npos)
      << down.output;
  EXPECT_TRUE(old_style->wait_for_exit(20s)) << "zklab down left the node running";
}

}  // namespace
