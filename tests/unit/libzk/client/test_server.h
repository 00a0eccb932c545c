// SPDX-License-Identifier: Apache-2.0
// TestServer: starts a ZooKeeper-compatible server on a free loopback port in
// a temporary directory, for client tests, and stops it.
//
// Which server: env ZK_TEST_SERVER = "apache" (Apache ZooKeeper 3.8 from the
// Debian zookeeper package, run with java) or "zkd" (the binary named by env
// ZKD_BIN, else the one this build made). Default: apache. zkd is started by
// zk::lab::ZkdProcess (zklab/process/zkd_process.h); Apache is started here. Both get
// the same settings: tickTime=2000, dataDir, clientPort,
// clientPortAddress=127.0.0.1, 4lw.commands.whitelist=*,
// admin.enableServer=false.
//
// start() waits (with a deadline) until the `srvr` four-letter word answers.
// Not thread-safe; the destructor stops the process it started (SIGTERM, then
// SIGKILL) and removes the directory (kept when env ZK_TEST_KEEP_DIR is set).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/common/temp_dir.h"
#include "zklab/process/port_reservation.h"

namespace zk::lab {
class ZkdProcess;
}

namespace zk::client::testing {

// What a test adds to the common settings, the same for either server.
struct TestServerOptions {
  std::vector<std::string> extra_lines;  // appended to zoo.cfg
  // A JAAS file for SASL: Apache gets -Djava.security.auth.login.config,
  // zkd the same in SERVER_JVMFLAGS (as zkServer.sh passes it).
  std::string jaas_file;
};

class TestServer {
 public:
  explicit TestServer(TestServerOptions options = {});
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  // Empty when a server can be started; otherwise why not (for GTEST_SKIP).
  static std::string unavailable_reason();

  // Starts the server; false (with error()) when it did not answer `srvr`
  // within `deadline`.
  bool start(std::chrono::milliseconds deadline = std::chrono::seconds(60));
  void stop();

  uint16_t port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  const std::string& error() const { return error_; }
  // "apache" or "zkd".
  static std::string kind();

 private:
  bool start_apache(std::chrono::milliseconds deadline);
  void stop_apache();

  TestServerOptions options_;
  std::unique_ptr<zk::lab::ZkdProcess> zkd_;     // the zkd case
  std::optional<zk::test::TempDir> apache_dir_;  // the Apache case: its directory
  std::string dir_;                              // the Apache case: apache_dir_'s path
  pid_t pid_ = -1;                               // the Apache case
  zk::lab::PortReservation port_hold_;           // the Apache case: its port, held while it runs
  uint16_t port_ = 0;
  std::string error_;
};

// A loopback port that nothing listens on while the reservation lives:
// connecting there is refused.
zk::lab::PortReservation unused_port();

// Sends a four-letter word to 127.0.0.1:port and returns the whole answer
// ("" when nothing answered within `timeout`).
std::string four_letter_word(uint16_t port, const std::string& word,
                             std::chrono::milliseconds timeout);

}  // namespace zk::client::testing
