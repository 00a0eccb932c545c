// SPDX-License-Identifier: Apache-2.0
// TcpProxy: a loopback TCP forwarder between a client under test and a
// server, used to cause connection loss on demand. Runs its own io_context on
// its own thread; every public method may be called from any other thread
// and returns once the proxy has applied it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace zk::client::testing {

class TcpProxy {
 public:
  // Listens on a free 127.0.0.1 port and forwards to 127.0.0.1:target_port.
  explicit TcpProxy(uint16_t target_port);
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  uint16_t port() const;
  std::string address() const { return "127.0.0.1:" + std::to_string(port()); }

  // Closes every forwarded connection (both sides).
  void drop_all();
  // While refusing, existing connections are dropped and new ones are closed
  // as soon as they are accepted.
  void set_refusing(bool refusing);
  // While silent, new connections are accepted and then held open without
  // forwarding or answering anything (a server that accepted TCP but never
  // serves it). Held connections stay silent after set_silent(false), until
  // the client closes them or the proxy is destroyed.
  void set_silent(bool silent);
  // Waits until at least `count` connections are held silently; false if that
  // did not happen within `deadline`.
  bool wait_for_held(int count, std::chrono::milliseconds deadline);
  // Number of client connections accepted and forwarded so far.
  int forwarded_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace zk::client::testing
