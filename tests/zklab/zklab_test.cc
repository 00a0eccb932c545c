// zklab as a user runs it: the real zklab binary, run as a process per
// command, starting real zkd daemons in a temporary lab directory. Waits poll
// `zklab status --json` with deadlines.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "zklab/zkd_process.h"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct Outcome {
  int exit_code = -1;  // -1: did not exit normally in time
  std::string output;  // stdout and stderr
};

struct Node {
  int pid = 0;  // 0: none recorded
  std::string role;
  bool alive = false;
};

// node id -> what `zklab status --json` says about it.
using Status = std::map<int, Node>;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class ZklabTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = zk::lab::make_temp_dir("zklab_test");
    ASSERT_FALSE(dir_.empty());
    lab_ = dir_ / "lab";
  }

  void TearDown() override {
    if (std::filesystem::exists(lab_)) {
      Outcome down = zklab({"down"});
      // Should `down` fail, kill what the pid files name (if it is this lab's zkd).
      if (down.exit_code != 0) {
        for (pid_t pid : recorded_pids()) {
          if (runs_in_lab(pid)) ::kill(pid, SIGKILL);
        }
      }
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // Runs zklab with `args` and --dir <lab> --zkd <built zkd>.
  Outcome zklab(std::vector<std::string> args, bool with_dir = true) {
    if (with_dir) {
      args.insert(args.begin(), {"--dir", lab_.string(), "--zkd", ZKD_BINARY, "--timeout", "20"});
    }
    auto r = zk::lab::run_zkd(ZKLAB_BINARY, args, 60s);
    Outcome out;
    out.output = r.output;
    if (r.status >= 0 && WIFEXITED(r.status)) out.exit_code = WEXITSTATUS(r.status);
    return out;
  }

  // `zklab status --json`, parsed; nothing when it fails.
  std::optional<Status> status() {
    Outcome r = zklab({"status", "--json"});
    if (r.exit_code != 0) return std::nullopt;
    static const std::regex kNode(
        R"re(\{"id":(\d+),"pid":(null|\d+),"client_port":\d+,"role":"([^"]*)",[^}]*"alive":(true|false)\})re");
    Status s;
    for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), kNode);
         it != std::sregex_iterator(); ++it) {
      const auto& m = *it;
      Node n;
      n.pid = m[2].str() == "null" ? 0 : std::stoi(m[2].str());
      n.role = m[3].str();
      n.alive = m[4].str() == "true";
      s[std::stoi(m[1].str())] = n;
    }
    return s;
  }

  // Polls status until `ok` holds; the last status seen, and whether it held.
  std::pair<Status, bool> wait_status(const std::function<bool(const Status&)>& ok,
                                      std::chrono::milliseconds deadline = 20s) {
    const auto until = Clock::now() + deadline;
    Status last;
    while (true) {
      if (auto s = status()) {
        last = *s;
        if (ok(last)) return {last, true};
      }
      if (Clock::now() >= until) return {last, false};
      std::this_thread::sleep_for(50ms);  // poll interval, bounded by the deadline
    }
  }

  static int count_role(const Status& s, const std::string& role) {
    int n = 0;
    for (const auto& [id, node] : s) n += node.role == role ? 1 : 0;
    return n;
  }

  std::vector<pid_t> recorded_pids() const {
    std::vector<pid_t> pids;
    for (int id = 1; id <= 9; ++id) {
      std::istringstream in(read_file(lab_ / ("n" + std::to_string(id)) / "zkd.pid"));
      pid_t pid = 0;
      if (in >> pid && pid > 0) pids.push_back(pid);
    }
    return pids;
  }

  // True while `pid` is a live (not zombie) process started on this lab's config.
  bool runs_in_lab(pid_t pid) const {
    const std::string proc = "/proc/" + std::to_string(pid);
    const std::string stat = read_file(proc + "/stat");
    const auto paren = stat.rfind(')');
    if (paren == std::string::npos || paren + 2 >= stat.size()) return false;
    if (stat[paren + 2] == 'Z' || stat[paren + 2] == 'X') return false;
    return read_file(proc + "/cmdline").find(lab_.string()) != std::string::npos;
  }

  std::filesystem::path dir_;
  std::filesystem::path lab_;
};

std::string describe(const Status& s) {
  std::string out;
  for (const auto& [id, n] : s) {
    out += std::to_string(id) + ":" + n.role + "(pid " + std::to_string(n.pid) + ") ";
  }
  return out;
}

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

TEST_F(ZklabTest, BadArgumentsExitTwoWithUsage) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{}, {"bogus"}, {"kill"}, {"up", "-n", "x"}, {"status", "--nope"}}) {
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

}  // namespace
