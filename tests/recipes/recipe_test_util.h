// SPDX-License-Identifier: Apache-2.0
// What every recipe test (tests/recipes: the lock, election and
// coordination recipes, their zkctl verbs and the Curator interop) shares:
// zkd servers to run against, connected clients, child processes (zkctl, sh,
// java) started and waited for with deadlines, waiting for a node or a
// condition with a deadline, and running a Curator peer. Built once, as the
// library recipe_test_util (tests/recipes/CMakeLists.txt), with this build's
// zkd and zkctl.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libzk/client/sync_client.h"
#include "tests/common/start_zkd.h"
#include "tests/common/temp_dir.h"
#include "zklab/process/ensemble.h"
#include "zklab/process/zkd_process.h"

namespace zk::recipes::testing {

// The standalone zkd the recipe tests run against, for start_zkd
// (tests/common/start_zkd.h): 200 ms ticks, so that session timeouts from
// 400 ms to 30 s are accepted, and `extra_config` lines in its zoo.cfg.
zk::lab::ZkdOptions recipe_zkd(std::vector<std::string> extra_config = {});
using zk::test::start_zkd;

// A 3-node zkd ensemble; null, with a failed expectation, if it did not start.
std::unique_ptr<zk::lab::Ensemble> start_ensemble();

// A client connected to `servers` (a connect string); null, with a failed
// expectation, if it could not connect within 20 s.
std::unique_ptr<zk::client::SyncClient> connect(
    const std::string& servers,
    std::chrono::milliseconds session_timeout = std::chrono::milliseconds(10000),
    zk::client::ClientOptions options = {});

// Waits (with an exists watch, looking again on every event) until `path`
// exists; false after `deadline`.
bool wait_for_node(zk::client::SyncClient& zk, const std::string& path,
                   std::chrono::milliseconds deadline = std::chrono::seconds(20));

// Starts `args` (args[0] a path) with output appended to `log`; the pid (a
// failed expectation when it could not start).
pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& log);
// Waits for child `pid` to exit (pidfd, no polling); its wait status, or
// nothing at the deadline (the child is left running then).
std::optional<int> wait_exit(pid_t pid, std::chrono::milliseconds deadline);
// The exit code of a wait status (128 + signal for a signal).
int exit_code(int wait_status);

// Polls `condition` every few milliseconds until it holds or the deadline
// passes; whether it held. For conditions with no event of their own (a
// file's contents, another process's progress).
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds deadline);

// The file's contents; empty if it does not exist.
std::string read_text(const std::filesystem::path& path);

// A fresh directory under /tmp, removed by the destructor.
struct TempDir : zk::test::TempDir {
  TempDir() : zk::test::TempDir("zk_recipes_test") {}
};

// The zkctl binary of this build.
std::string zkctl_binary();

// A child process whose stdout and stderr go to a log of its own: zkctl with
// `args` (after -s SERVERS), or a shell command line in which "$ZKCTL" names
// the zkctl binary. The destructor kills and reaps it if it still runs.
class ZkctlProcess {
 public:
  static std::unique_ptr<ZkctlProcess> zkctl(const std::string& servers,
                                             const std::vector<std::string>& args);
  static std::unique_ptr<ZkctlProcess> shell(const std::string& script);
  ~ZkctlProcess();

  pid_t pid() const { return pid_; }
  // Waits for the exit (killing the process, with a failed expectation,
  // after `deadline`); the exit code, or -1 when it did not exit normally.
  int wait(std::chrono::milliseconds deadline = std::chrono::seconds(60));
  // What it wrote so far.
  std::string output() const;

 private:
  ZkctlProcess(pid_t pid, std::filesystem::path log) : pid_(pid), log_(std::move(log)) {}
  pid_t pid_;
  std::filesystem::path log_;
  bool reaped_ = false;
};

// Curator (Apache's Java recipes) as installed under /usr/share/java.
// Empty when every jar is there, else the first missing jar.
std::string missing_curator_jar();
// The command line running the Java source file `source` (a peer under
// tests/recipes/curator) with `args`: `java -cp <Curator's jars> source args`.
std::vector<std::string> curator_peer(const std::string& source,
                                      const std::vector<std::string>& args);

// A fixture for tests with Curator peers: skipped when Curator is not
// installed; otherwise a standalone zkd (start_zkd; its container manager
// runs every 100 ms), a client on it and a temporary directory.
class CuratorTest : public ::testing::Test {
 protected:
  void SetUp() override;

  std::unique_ptr<zk::lab::ZkdProcess> zkd_;
  std::unique_ptr<zk::client::SyncClient> admin_;
  TempDir dir_;
};

}  // namespace zk::recipes::testing
