// SPDX-License-Identifier: Apache-2.0
// CuttingProxy: a loopback TCP forwarder between one ZooKeeper client and a
// server that can lose a reply on purpose: the request reaches the server
// (and is applied), the reply never reaches the client, and the connection is
// closed, as when a network fails at the worst moment. Also refuses
// connections on demand (a client cut off from the ensemble).
//
// It reads the server's frames (4-byte length, then the reply header's xid)
// so that ping replies (xid -2) and watch notifications (xid -1) pass, and
// the first other reply after cut_next_reply() is the one cut. Runs its own
// threads; every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace zk::recipes::testing {

class CuttingProxy {
 public:
  // Listens on a free 127.0.0.1 port, forwards to 127.0.0.1:target_port.
  explicit CuttingProxy(uint16_t target_port);
  ~CuttingProxy();
  CuttingProxy(const CuttingProxy&) = delete;
  CuttingProxy& operator=(const CuttingProxy&) = delete;

  std::string address() const;

  // The next reply to a request (on a connection past its handshake) is
  // dropped and that connection closed both ways.
  void cut_next_reply();
  // How many replies were cut so far.
  int cuts() const;
  // While refusing, forwarded connections are closed and new ones closed as
  // soon as they are accepted.
  void set_refusing(bool refusing);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace zk::recipes::testing
