// SPDX-License-Identifier: Apache-2.0
// zkd under a service manager (zkd/service_notify.h, dist/zkd.service): the
// real zkd, started with $NOTIFY_SOCKET naming a unix datagram socket this
// test owns, as systemd starts a Type=notify service. READY=1 must arrive and
// the client port must answer by then; after SIGTERM, STOPPING=1 must arrive
// and zkd exit 0. zkd runs on the sample configuration dist/zoo.cfg (only its
// data dir and ports changed), so the sample is known to start a server.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>

#include "tests/lab/lab_test_util.h"
#include "zklab/process/four_letter_word.h"
#include "zklab/process/port_reservation.h"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The unix datagram socket a service manager listens on for sd_notify.
class NotifySocket {
 public:
  explicit NotifySocket(const std::filesystem::path& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (fd_ < 0 || path.string().size() >= sizeof(addr.sun_path)) return;
    path.string().copy(addr.sun_path, sizeof(addr.sun_path) - 1);
    if (::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~NotifySocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  NotifySocket(const NotifySocket&) = delete;
  NotifySocket& operator=(const NotifySocket&) = delete;

  bool ok() const { return fd_ >= 0; }
  const std::filesystem::path& path() const { return path_; }

  // Every message received until one has the line `line`; that message, or
  // nothing at the deadline. `seen` gathers everything received.
  std::optional<std::string> wait_for_line(const std::string& line,
                                           std::chrono::milliseconds deadline, std::string& seen) {
    const auto until = Clock::now() + deadline;
    while (true) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
      if (left <= 0) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) continue;
      std::string message(buf, static_cast<size_t>(n));
      seen += message + "\n--\n";
      std::istringstream lines(message);
      for (std::string l; std::getline(lines, l);) {
        if (l == line) return message;
      }
    }
  }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

// dist/zoo.cfg with the data dir and the client port of ZkdProcess, the client
// port on loopback only and the admin server on `admin_port`.
std::string sample_config(uint16_t admin_port) {
  std::ifstream in(ZK_SAMPLE_CONFIG);
  std::stringstream text;
  text << in.rdbuf();
  std::string out;
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("dataDir=")) line = "dataDir={dataDir}";
    if (line.starts_with("clientPort=")) line = "clientPort={port}";
    if (line.starts_with("#clientPortAddress=")) line = "clientPortAddress=127.0.0.1";
    if (line.starts_with("admin.serverPort="))
      line = "admin.serverPort=" + std::to_string(admin_port);
    out += line + "\n";
  }
  return out;
}

// Removes the test's directory however the test ends.
struct RemovedAtExit {
  std::filesystem::path dir;
  ~RemovedAtExit() {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};

TEST(ServiceNotify, ReadyWhenServingStoppingOnSigterm) {
  const RemovedAtExit dir{zk::lab::make_temp_dir("zkd_notify")};
  ASSERT_FALSE(dir.dir.empty());
  NotifySocket manager(dir.dir / "notify");
  ASSERT_TRUE(manager.ok()) << manager.path();
  auto admin = zk::lab::PortReservation::any();
  ASSERT_NE(admin.port(), 0);

  auto options = zk::lab::zkd_options();
  options.raw_config = sample_config(admin.port());
  ASSERT_NE(options.raw_config->find("4lw.commands.whitelist=ruok,"), std::string::npos);
  options.wait_until_ready = false;
  // zkd inherits the environment, as it would from systemd.
  ::setenv("NOTIFY_SOCKET", manager.path().c_str(), 1);
  auto started = zk::lab::ZkdProcess::start(options);
  ::unsetenv("NOTIFY_SOCKET");
  ASSERT_TRUE(started.process) << started.error;
  auto& zkd = *started.process;

  std::string seen;
  auto ready = manager.wait_for_line("READY=1", 30s, seen);
  ASSERT_TRUE(ready) << "no READY=1; received:\n" << seen << "\nzkd log:\n" << zkd.log_tail();
  // By READY=1 the data is recovered and the client port answers.
  EXPECT_EQ(zk::lab::four_letter_word(zkd.host(), zkd.port(), "ruok"), "imok");
  EXPECT_NE(ready->find("STATUS=listening on client port " + std::to_string(zkd.port())),
            std::string::npos)
      << *ready;
  // The status sent before recovery came first.
  EXPECT_NE(seen.find("STATUS=recovering the data in "), std::string::npos) << seen;
  EXPECT_LT(seen.find("STATUS=recovering"), seen.find("READY=1")) << seen;

  ASSERT_TRUE(zkd.signal(SIGTERM));
  auto stopping = manager.wait_for_line("STOPPING=1", 30s, seen);
  EXPECT_TRUE(stopping) << "no STOPPING=1; received:\n" << seen << "\nzkd log:\n" << zkd.log_tail();
  auto status = zkd.wait_for_exit(30s);
  ASSERT_TRUE(status) << zkd.log_tail();
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status << "\n" << zkd.log_tail();
}

}  // namespace
