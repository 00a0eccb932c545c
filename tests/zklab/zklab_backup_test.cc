// SPDX-License-Identifier: Apache-2.0
// `zklab backup` and `zklab restore` as a user runs them: the real zklab, zkd
// and zkctl on a 3-node lab. A backup taken, the tree changed (a create, a
// delete, a setData), the backup restored: every node serves exactly the
// backed-up tree and takes writes after. A file that is no snapshot changes
// nothing: the same nodes (pids) keep serving. A backup without an identity
// is refused with the hint to pass one.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/zklab/zklab_test_util.h"
#include "zklab/process/zkd_process.h"

namespace {

using namespace std::chrono_literals;
using namespace zk::lab::testing;

class ZklabBackupTest : public ZklabFixture {
 protected:
  // zkctl with `args` against `address`: its wait status and output.
  zk::lab::RunResult zkctl(const std::string& address, std::vector<std::string> args) {
    args.insert(args.begin(), {"-s", address});
    return zk::lab::run_zkd(ZKCTL_BINARY, args, 30s);
  }

  void write(const std::string& address, std::vector<std::string> args) {
    const auto done = zkctl(address, args);
    ASSERT_EQ(done.status, 0) << args.front() << " " << args.at(1) << ": " << done.output;
  }

  // Every node serving, one leading.
  static bool whole(const Status& s) { return serving_under_one_leader(s, 3); }

  // What node `n` serves: `ls -R /` without /zookeeper, and /kept's data.
  std::string tree_on(const Node& n) {
    EXPECT_EQ(zkctl(n.address(), {"sync", "/"}).status, 0);
    const auto listed = zkctl(n.address(), {"ls", "-R", "/"});
    EXPECT_EQ(listed.status, 0) << listed.output;
    std::string tree;
    std::istringstream lines(listed.output);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("/zookeeper") == std::string::npos) tree += line + "\n";
    }
    return tree + "kept=" + zkctl(n.address(), {"get", "/kept"}).output;
  }
};

TEST_F(ZklabBackupTest, RestoreBringsBackTheBackedUpTreeOnEveryNode) {
  ASSERT_FALSE(up_and_leader(3).empty());
  auto s = status();
  ASSERT_TRUE(s);
  const std::string first = s->at(1).address();
  write(first, {"create", "/kept", "v1"});
  write(first, {"create", "/kept/child", "c"});
  write(first, {"create", "/doomed", "d"});
  const std::string backed_up = tree_on(s->at(2));
  EXPECT_NE(backed_up.find("/doomed"), std::string::npos) << backed_up;

  const auto file = dir_ / "lab.snapshot";
  Outcome backup = zklab({"backup", file.string()});
  ASSERT_EQ(backup.exit_code, 0) << backup.output;
  EXPECT_TRUE(std::regex_search(
      backup.output,
      std::regex("node \\d \\((leader|follower)\\): snapshot at zxid 0x[0-9a-f]+, \\d+ bytes, "
                 "written to ")))
      << backup.output;
  EXPECT_TRUE(std::filesystem::exists(file));
  EXPECT_FALSE(std::filesystem::exists(file.string() + ".partial"));

  write(first, {"create", "/later", "x"});
  write(first, {"delete", "/doomed"});
  write(first, {"set", "/kept", "v2"});
  ASSERT_NE(tree_on(s->at(3)), backed_up);

  Outcome restore = zklab({"restore", file.string()});
  ASSERT_EQ(restore.exit_code, 0) << restore.output;
  EXPECT_TRUE(
      std::regex_search(restore.output, std::regex("restored \\d+ znodes .* at zxid 0x[0-9a-f]+")))
      << restore.output;
  EXPECT_TRUE(std::regex_search(
      restore.output,
      std::regex("restored on 3 node\\(s\\); the lab serves again after [0-9.]+ s")))
      << restore.output;
  std::smatch aside;
  ASSERT_TRUE(std::regex_search(restore.output, aside, std::regex("data\\.before-restore-\\w+")))
      << restore.output;

  auto [after, serving] = wait_status([](const Status& st) { return whole(st); });
  ASSERT_TRUE(serving) << describe(after);
  for (const auto& [id, n] : after) {
    EXPECT_EQ(tree_on(n), backed_up) << "node " << id;
    // The data before the restore is kept, beside the new one, with the same myid.
    const auto node_dir = lab_ / ("n" + std::to_string(id));
    EXPECT_EQ(read_file(node_dir / aside.str() / "myid"), read_file(node_dir / "data" / "myid"));
  }
  // The restored lab takes writes, and every node sees them.
  write(after.at(2).address(), {"create", "/after", "y"});
  for (const auto& [id, n] : after) {
    EXPECT_EQ(zkctl(n.address(), {"exists", "/after"}).status, 0) << "node " << id;
  }
  expect_clean_down_ = true;
}

TEST_F(ZklabBackupTest, AFileThatIsNoSnapshotChangesNothingAndBackupNeedsAnIdentity) {
  ASSERT_FALSE(up_and_leader(3).empty());
  const std::vector<pid_t> pids = recorded_pids();
  const auto garbage = dir_ / "garbage.snapshot";
  std::ofstream(garbage) << "this is not a snapshot\n";

  Outcome restore = zklab({"restore", garbage.string()});
  EXPECT_NE(restore.exit_code, 0) << restore.output;
  EXPECT_NE(restore.output.find("does not restore (nothing changed)"), std::string::npos)
      << restore.output;
  EXPECT_EQ(recorded_pids(), pids);
  // No data was set aside.
  for (int id = 1; id <= 3; ++id) {
    for (const auto& entry :
         std::filesystem::directory_iterator(lab_ / ("n" + std::to_string(id)))) {
      EXPECT_EQ(entry.path().filename().string().find("before-restore"), std::string::npos)
          << entry.path();
    }
  }
  auto [after, serving] = wait_status([](const Status& st) { return whole(st); });
  ASSERT_TRUE(serving) << describe(after);
  write(after.at(1).address(), {"create", "/still", "z"});

  // A backup without an identity is refused by the admin server (401), with
  // the hint to pass one, and writes no file.
  const auto refused_file = dir_ / "refused.snapshot";
  Outcome refused = zklab({"backup", "--auth", "", refused_file.string()});
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_NE(refused.output.find("answered 401"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("pass --auth"), std::string::npos) << refused.output;
  EXPECT_FALSE(std::filesystem::exists(refused_file));
  // The node asked, its admin port, as status --json names them.
  Outcome json = zklab({"backup", "--node", "2", "--json", (dir_ / "two.snapshot").string()});
  EXPECT_EQ(json.exit_code, 0) << json.output;
  EXPECT_TRUE(std::regex_search(
      json.output,
      std::regex(
          R"(\{"node":2,"file":"[^"]+two\.snapshot","last_zxid":"0x[0-9a-f]+","bytes":\d+\})")))
      << json.output;

  // A missing file is a usage error: nothing runs.
  Outcome missing = zklab({"restore", (dir_ / "none").string()});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_EQ(recorded_pids(), pids);
  expect_clean_down_ = true;
}

}  // namespace
