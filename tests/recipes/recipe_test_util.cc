// SPDX-License-Identifier: Apache-2.0
#include "tests/recipes/recipe_test_util.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>

#include "toolkit/child_process.h"
#include "toolkit/poll_until.h"

namespace zk::recipes::testing {

zk::lab::ZkdOptions recipe_zkd(std::vector<std::string> extra_config) {
  zk::lab::ZkdOptions options;
  options.extra_lines = std::move(extra_config);
  options.tick_time_ms = 200;
  options.max_session_timeout_ms = 30000;
  return options;
}

std::unique_ptr<zk::lab::Ensemble> start_ensemble() {
  zk::lab::EnsembleOptions options;
  options.zkd_binary = ZKD_BINARY;
  auto started = zk::lab::Ensemble::start(options);
  EXPECT_TRUE(started.ensemble) << started.error;
  return std::move(started.ensemble);
}

std::unique_ptr<zk::client::SyncClient> connect(const std::string& servers,
                                                std::chrono::milliseconds session_timeout,
                                                zk::client::ClientOptions options) {
  options.session_timeout = session_timeout;
  auto client = std::make_unique<zk::client::SyncClient>(options);
  auto connected = client->connect(servers, session_timeout, std::chrono::seconds(20));
  EXPECT_TRUE(connected.ok()) << zk::wire::error_name(connected.error());
  if (!connected.ok()) return nullptr;
  return client;
}

bool wait_for_node(zk::client::SyncClient& zk, const std::string& path,
                   std::chrono::milliseconds deadline) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    auto stat = zk.exists(path, true);
    if (stat.ok() && stat->has_value()) return true;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    (void)zk.next_watch_event(left);  // any event: look again
  }
}

pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& log) {
  std::string error;
  auto child = zk::toolkit::ChildProcess::start({.argv = args, .log = log}, error);
  EXPECT_TRUE(child) << args.front() << ": " << error;
  return child ? child->detach() : -1;  // reaped by wait_exit() or ZkctlProcess
}

std::optional<int> wait_exit(pid_t pid, std::chrono::milliseconds deadline) {
  // pidfd_open through syscall(2): glibc 2.36's <sys/pidfd.h> lacks C++ linkage.
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0) {
    pollfd p = {fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(deadline.count()));
    close(fd);
    if (ready <= 0) return std::nullopt;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return std::nullopt;
  return status;
}

int exit_code(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds deadline) {
  return zk::toolkit::poll_until(condition, deadline, std::chrono::milliseconds(20));
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string zkctl_binary() { return ZKCTL_BINARY; }

namespace {

std::filesystem::path new_log() {
  static std::atomic<int> counter{0};
  return std::filesystem::temp_directory_path() /
         ("zkctl_recipes_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ".log");
}

}  // namespace

std::unique_ptr<ZkctlProcess> ZkctlProcess::zkctl(const std::string& servers,
                                                  const std::vector<std::string>& args) {
  std::vector<std::string> argv = {ZKCTL_BINARY, "-s", servers};
  argv.insert(argv.end(), args.begin(), args.end());
  auto log = new_log();
  return std::unique_ptr<ZkctlProcess>(new ZkctlProcess(spawn(argv, log), log));
}

std::unique_ptr<ZkctlProcess> ZkctlProcess::shell(const std::string& script) {
  auto log = new_log();
  setenv("ZKCTL", ZKCTL_BINARY, 1);
  return std::unique_ptr<ZkctlProcess>(
      new ZkctlProcess(spawn({"/bin/sh", "-c", script}, log), log));
}

ZkctlProcess::~ZkctlProcess() {
  if (!reaped_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  std::error_code ignored;
  std::filesystem::remove(log_, ignored);
}

int ZkctlProcess::wait(std::chrono::milliseconds deadline) {
  if (reaped_ || pid_ <= 0) return -1;
  auto status = wait_exit(pid_, deadline);
  reaped_ = true;
  if (!status) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    ADD_FAILURE() << "process " << pid_ << " did not exit in time:\n" << output();
    return -1;
  }
  return WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
}

std::string ZkctlProcess::output() const { return read_text(log_); }

namespace {

const char* const kCuratorJars[] = {"curator-client", "curator-framework", "curator-recipes",
                                    "zookeeper",      "zookeeper-jute",    "guava",
                                    "slf4j-api",      "slf4j-nop"};

std::string jar_path(const char* jar) { return std::string("/usr/share/java/") + jar + ".jar"; }

}  // namespace

std::string missing_curator_jar() {
  for (const char* jar : kCuratorJars) {
    if (!std::filesystem::exists(jar_path(jar))) return jar_path(jar);
  }
  return "";
}

std::vector<std::string> curator_peer(const std::string& source,
                                      const std::vector<std::string>& args) {
  std::string class_path;
  for (const char* jar : kCuratorJars) {
    if (!class_path.empty()) class_path += ":";
    class_path += jar_path(jar);
  }
  const std::string java =
      std::filesystem::exists("/usr/bin/java") ? "/usr/bin/java" : std::string("java");
  std::vector<std::string> out = {
      java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", class_path, source};
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

void CuratorTest::SetUp() {
  if (std::string jar = missing_curator_jar(); !jar.empty()) {
    GTEST_SKIP() << "Curator is not installed (" << jar << ")";
  }
  // Curator makes missing parents containers: sweep them often.
  zkd_ = start_zkd(recipe_zkd({"znode.container.checkIntervalMs=100"}));
  ASSERT_TRUE(zkd_);
  admin_ = connect(zkd_->address());
  ASSERT_TRUE(admin_);
}

}  // namespace zk::recipes::testing
