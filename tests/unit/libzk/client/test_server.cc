// SPDX-License-Identifier: Apache-2.0
#include "tests/unit/libzk/client/test_server.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "zklab/process/four_letter_word.h"
#include "zklab/process/zkd_process.h"

extern char** environ;

namespace zk::client::testing {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kApacheJar = "/usr/share/java/zookeeper.jar";
constexpr const char* kJava = "/usr/bin/java";
constexpr const char* kTempPrefix = "zk-client-test";
constexpr auto kStopDeadline = std::chrono::seconds(10);

// The zkd binary: env ZKD_BIN, else the one this build made (ZKD_BINARY).
const char* zkd_binary() {
  const char* env = std::getenv("ZKD_BIN");
  if (env != nullptr && *env != '\0') return env;
#ifdef ZKD_BINARY
  return ZKD_BINARY;
#else
  return nullptr;
#endif
}

bool keep_dir() { return std::getenv("ZK_TEST_KEEP_DIR") != nullptr; }

}  // namespace

std::string TestServer::kind() {
  const char* env = std::getenv("ZK_TEST_SERVER");
  if (env != nullptr && *env != '\0') return env;
  return "apache";
}

std::string TestServer::unavailable_reason() {
  std::string k = kind();
  if (k == "zkd") {
    const char* bin = zkd_binary();
    if (bin == nullptr || access(bin, X_OK) != 0) {
      return "ZK_TEST_SERVER=zkd but neither ZKD_BIN nor the build names a zkd executable";
    }
    return {};
  }
  if (k != "apache") return "ZK_TEST_SERVER must be apache or zkd, not " + k;
  if (access(kApacheJar, R_OK) != 0 || access(kJava, X_OK) != 0) {
    return "Apache ZooKeeper not installed (need /usr/share/java/zookeeper.jar and java)";
  }
  return {};
}

zk::lab::PortReservation unused_port() { return zk::lab::PortReservation::any(); }

std::string four_letter_word(uint16_t port, const std::string& word,
                             std::chrono::milliseconds timeout) {
  return zk::lab::four_letter_word("127.0.0.1", port, word, timeout).value_or("");
}

TestServer::TestServer(TestServerOptions options) : options_(std::move(options)) {}

TestServer::~TestServer() { stop(); }

bool TestServer::start(std::chrono::milliseconds deadline) {
  if (kind() != "zkd") return start_apache(deadline);
  const char* binary = zkd_binary();
  if (binary == nullptr) {
    error_ = "no zkd binary";
    return false;
  }
  zk::lab::ZkdOptions options;
  options.binary = binary;
  options.temp_dir_prefix = kTempPrefix;
  options.tick_time_ms = 2000;
  options.extra_lines = {"admin.enableServer=false"};
  options.extra_lines.insert(options.extra_lines.end(), options_.extra_lines.begin(),
                             options_.extra_lines.end());
  if (!options_.jaas_file.empty()) {
    options.environment = {"SERVER_JVMFLAGS=-Djava.security.auth.login.config=" +
                           options_.jaas_file};
  }
  options.start_deadline = deadline;
  zk::lab::StartResult started = zk::lab::ZkdProcess::start(options);
  if (!started.process) {
    error_ = started.error;
    return false;
  }
  zkd_ = std::move(started.process);
  if (keep_dir()) zkd_->keep_directory();
  port_ = zkd_->port();
  return true;
}

void TestServer::stop() {
  if (zkd_) {
    // A clean stop first (as for Apache), SIGKILL when that takes too long.
    if (zkd_->signal(SIGTERM) && !zkd_->wait_for_exit(kStopDeadline)) zkd_->kill();
    zkd_.reset();  // removes the directory unless kept
  }
  stop_apache();
}

bool TestServer::start_apache(std::chrono::milliseconds deadline) {
  apache_dir_.emplace(kTempPrefix);
  if (keep_dir()) apache_dir_->keep();
  dir_ = apache_dir_->path().string();
  port_hold_ = unused_port();
  port_ = port_hold_.port();
  fs::create_directories(fs::path(dir_) / "data");
  std::string cfg = (fs::path(dir_) / "zoo.cfg").string();
  {
    std::ofstream out(cfg);
    out << "tickTime=2000\n"
        << "dataDir=" << dir_ << "/data\n"
        << "clientPort=" << port_ << "\n"
        << "clientPortAddress=127.0.0.1\n"
        << "4lw.commands.whitelist=*\n"
        << "admin.enableServer=false\n";
    for (const auto& line : options_.extra_lines) out << line << "\n";
  }
  std::vector<std::string> args = {kJava,
                                   "-Xmx256m",
                                   "-XX:+UseSerialGC",
                                   "-XX:TieredStopAtLevel=1",
                                   "-Dzookeeper.admin.enableServer=false",
                                   "-Dzookeeper.log.dir=" + dir_,
                                   "-cp",
                                   std::string("/etc/zookeeper/conf:") + kApacheJar,
                                   "org.apache.zookeeper.server.ZooKeeperServerMain",
                                   cfg};
  if (!options_.jaas_file.empty()) {
    args.insert(args.begin() + 1, "-Djava.security.auth.login.config=" + options_.jaas_file);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::string log = dir_ + "/server.log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    pid_ = -1;
    error_ = "cannot start " + args[0];
    return false;
  }

  auto until = Clock::now() + deadline;
  while (Clock::now() < until) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      error_ = "server exited during start-up; see " + log;
      return false;
    }
    if (four_letter_word(port_, "srvr", std::chrono::seconds(2)).find("Mode:") !=
        std::string::npos) {
      return true;
    }
    // Polling a process that has no readiness signal other than its port.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  error_ = "server did not answer srvr on port " + std::to_string(port_) + "; see " + log;
  return false;
}

void TestServer::stop_apache() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    auto until = Clock::now() + kStopDeadline;
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (Clock::now() > until) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
  }
  apache_dir_.reset();  // removes the directory unless kept
  dir_.clear();
}

}  // namespace zk::client::testing
