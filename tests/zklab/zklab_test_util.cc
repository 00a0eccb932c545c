// SPDX-License-Identifier: Apache-2.0
#include "tests/zklab/zklab_test_util.h"

#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "toolkit/poll_until.h"
#include "zklab/process/zkd_process.h"

namespace zk::lab::testing {

using namespace std::chrono_literals;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string describe(const Status& s) {
  std::string out;
  for (const auto& [id, n] : s) {
    out += std::to_string(id) + ":" + n.role + "(pid " + std::to_string(n.pid) + ") ";
  }
  return out;
}

bool serving_under_one_leader(const Status& s, size_t nodes) {
  for (const auto& [id, n] : s) {
    if (!n.alive || (n.role != "leader" && n.role != "follower")) return false;
  }
  return s.size() == nodes && count_role(s, "leader") == 1;
}

int count_role(const Status& s, const std::string& role) {
  int n = 0;
  for (const auto& [id, node] : s) n += node.role == role ? 1 : 0;
  return n;
}

void ZklabFixture::SetUp() {
  dir_ = zk::lab::make_temp_dir("zklab_test");
  ASSERT_FALSE(dir_.empty());
  lab_ = dir_ / "lab";
}

void ZklabFixture::TearDown() {
  if (std::filesystem::exists(lab_)) {
    Outcome down = zklab({"down"});
    if (expect_clean_down_) {
      EXPECT_EQ(down.exit_code, 0) << down.output;
    }
    if (down.exit_code != 0) {
      std::vector<pid_t> pids = recorded_pids();
      std::istringstream relay(read_file(lab_ / "relay.pid"));
      pid_t pid = 0;
      if (relay >> pid && pid > 0) pids.push_back(pid);
      for (pid_t p : pids) {
        if (runs_in_lab(p)) ::kill(p, SIGKILL);
      }
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

Outcome ZklabFixture::zklab(std::vector<std::string> args, bool with_dir,
                            std::chrono::milliseconds deadline) {
  if (with_dir) {
    args.insert(args.begin(), {"--dir", lab_.string(), "--zkd", ZKD_BINARY, "--timeout", "20"});
  }
  auto r = zk::lab::run_zkd(ZKLAB_BINARY, args, deadline);
  Outcome out;
  out.output = r.output;
  if (r.status >= 0 && WIFEXITED(r.status)) out.exit_code = WEXITSTATUS(r.status);
  return out;
}

std::string ZklabFixture::up_and_leader(int nodes) {
  Outcome up = zklab({"up", "-n", std::to_string(nodes)});
  EXPECT_EQ(up.exit_code, 0) << up.output;
  std::smatch m;
  if (!std::regex_search(up.output, m, std::regex("node (\\d+) \\S+ pid \\d+ leader"))) {
    ADD_FAILURE() << "zklab up named no leader:\n" << up.output;
    return "";
  }
  return m[1].str();
}

std::optional<Status> ZklabFixture::status() {
  Outcome r = zklab({"status", "--json"});
  if (r.exit_code != 0) return std::nullopt;
  EXPECT_TRUE(r.output.starts_with("{\"format\":1,")) << r.output;
  static const std::regex kNode(
      R"re(\{"id":(\d+),"pid":(null|\d+),"client_port":(\d+),"role":"([^"]*)",[^}]*"epoch":(null|\d+),[^}]*"sessions":(null|\d+),[^}]*"alive":(true|false)\})re");
  Status s;
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), kNode);
       it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    Node n;
    n.pid = m[2].str() == "null" ? 0 : std::stoi(m[2].str());
    n.client_port = std::stoi(m[3].str());
    n.role = m[4].str();
    n.epoch = m[5].str() == "null" ? -1 : std::stoll(m[5].str());
    n.sessions = m[6].str() == "null" ? -1 : std::stoll(m[6].str());
    n.alive = m[7].str() == "true";
    s[std::stoi(m[1].str())] = n;
  }
  return s;
}

std::pair<Status, bool> ZklabFixture::wait_status(const std::function<bool(const Status&)>& ok,
                                                  std::chrono::milliseconds deadline) {
  Status last;
  const bool held = zk::toolkit::poll_until(
      [&] {
        auto s = status();
        if (s) last = *s;
        return s && ok(last);
      },
      deadline, 50ms);
  return {last, held};
}

std::vector<pid_t> ZklabFixture::recorded_pids() const {
  std::vector<pid_t> pids;
  for (int id = 1; id <= 9; ++id) {
    std::istringstream in(read_file(lab_ / ("n" + std::to_string(id)) / "zkd.pid"));
    pid_t pid = 0;
    if (in >> pid && pid > 0) pids.push_back(pid);
  }
  return pids;
}

bool ZklabFixture::runs_in_lab(pid_t pid) const {
  const std::string proc = "/proc/" + std::to_string(pid);
  const std::string stat = read_file(proc + "/stat");
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return false;
  if (stat[paren + 2] == 'Z' || stat[paren + 2] == 'X') return false;
  if (read_file(proc + "/cmdline").find(lab_.string()) != std::string::npos) return true;
  // Started from inside the test's directory with a relative lab path.
  std::error_code ec;
  const auto cwd = std::filesystem::read_symlink(proc + "/cwd", ec).string();
  return !ec && cwd.starts_with(dir_.string());
}

}  // namespace zk::lab::testing
