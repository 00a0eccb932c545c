// TestServer: starts a ZooKeeper-compatible server on a free loopback port in
// a temporary directory, for client tests, and stops it.
//
// Which server: env ZK_TEST_SERVER = "apache" (Apache ZooKeeper 3.8 from the
// Debian zookeeper package, run with java) or "zkd" (the binary named by env
// ZKD_BIN, run as `$ZKD_BIN --config <zoo.cfg>`). Default: apache when
// /usr/share/java/zookeeper.jar and java exist. Both get the same zoo.cfg:
// tickTime=2000, dataDir, clientPort, clientPortAddress=127.0.0.1,
// 4lw.commands.whitelist=*.
//
// start() waits (with a deadline) until the `srvr` four-letter word answers.
// Not thread-safe; the destructor stops the process it started (SIGTERM, then
// SIGKILL) and removes the directory.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace zk::client::testing {

class TestServer {
 public:
  TestServer() = default;
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
  std::string dir_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
  std::string error_;
};

// A loopback port that nothing listens on (bound once, then released).
uint16_t unused_port();

// Sends a four-letter word to 127.0.0.1:port and returns the whole answer
// ("" when nothing answered within `timeout`).
std::string four_letter_word(uint16_t port, const std::string& word,
                             std::chrono::milliseconds timeout);

}  // namespace zk::client::testing
