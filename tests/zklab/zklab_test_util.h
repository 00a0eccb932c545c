// SPDX-License-Identifier: Apache-2.0
// What the process tests of the zklab tool share: a fixture with a temporary
// lab directory that runs the real zklab binary (ZKLAB_BINARY, with the
// ZKD_BINARY zkd) as a process per command and reads `zklab status --json`,
// polling with deadlines. The library zklab_test_util is built with this
// build's zklab and zkd (tests/zklab/CMakeLists.txt).
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace zk::lab::testing {

struct Outcome {
  int exit_code = -1;  // -1: did not exit normally in time
  std::string output;  // stdout and stderr
};

struct Node {
  int pid = 0;  // 0: none recorded
  int client_port = 0;
  std::string role;
  int64_t epoch = -1;     // -1: unknown (null)
  int64_t sessions = -1;  // -1: unknown (null)
  bool alive = false;

  std::string address() const { return "127.0.0.1:" + std::to_string(client_port); }
};

// node id -> what `zklab status --json` says about it.
using Status = std::map<int, Node>;

std::string read_file(const std::filesystem::path& p);
// "1:leader(pid 12) 2:follower(pid 13) ".
std::string describe(const Status& s);
int count_role(const Status& s, const std::string& role);
// `nodes` nodes, every one alive and serving (leader or follower), one leading.
bool serving_under_one_leader(const Status& s, size_t nodes);

// How long ZklabFixture::zklab waits for one zklab process unless told.
inline constexpr std::chrono::milliseconds kZklabDeadline = std::chrono::seconds(60);

class ZklabFixture : public ::testing::Test {
 protected:
  void SetUp() override;
  // If the lab directory exists, `zklab down` (and, with expect_clean_down_,
  // expects it to exit 0); should it fail, SIGKILLs what the pid files name
  // (if it is this lab's zkd or relay daemon). Then removes the temporary
  // directory.
  void TearDown() override;

  // Runs zklab with `args`, preceded (with_dir) by --dir <lab> --zkd <built
  // zkd> --timeout 20; a process still running after `deadline` is killed and
  // reported with exit_code -1.
  Outcome zklab(std::vector<std::string> args, bool with_dir = true,
                std::chrono::milliseconds deadline = kZklabDeadline);
  // The same with --dir etc. and a deadline of its own.
  Outcome zklab(std::vector<std::string> args, std::chrono::milliseconds deadline) {
    return zklab(std::move(args), true, deadline);
  }
  // `zklab status --json`, parsed; nothing when it fails.
  std::optional<Status> status();
  // `zklab up -n NODES`; the id of the node it reports leading ("" after a
  // test failure when up fails or names none).
  std::string up_and_leader(int nodes = 3);
  // Polls status until `ok` holds; the last status seen, and whether it held.
  std::pair<Status, bool> wait_status(
      const std::function<bool(const Status&)>& ok,
      std::chrono::milliseconds deadline = std::chrono::seconds(20));
  // The pids in the nodes' zkd.pid files.
  std::vector<pid_t> recorded_pids() const;
  // True while `pid` is a live (not zombie) process with the lab's path on its
  // command line, or working in the test's directory.
  bool runs_in_lab(pid_t pid) const;

  std::filesystem::path dir_;
  std::filesystem::path lab_;
  // Set by a test (or a derived fixture) whose lab must come down cleanly.
  bool expect_clean_down_ = false;
};

}  // namespace zk::lab::testing
