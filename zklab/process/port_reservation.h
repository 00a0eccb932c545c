// SPDX-License-Identifier: Apache-2.0
// PortReservation: a free loopback TCP port, held until its owner lets go.
//
// Picking a port by binding port 0 and closing the socket leaves a window in
// which the kernel gives the same port to someone else on this machine: to
// another process's bind(0) or, since both draw from the ephemeral range, to
// any outgoing connection. A server started on it then fails with "address
// already in use" (tests running side by side under ctest hit this). A
// reservation closes the window: its socket stays bound to 127.0.0.1:<port>
// with SO_REUSEADDR and never listens, so the kernel hands the port to no
// bind(0) and no connect() while it lives, yet a server that binds it with
// SO_REUSEADDR (zkd, Apache ZooKeeper, zklab's relays) listens there as usual.
// A client connecting while only the reservation holds the port is refused.
//
// Ownership: move-only; the destructor closes the socket (the port is then
// free for anyone). The socket is close-on-exec, so child processes do not
// inherit it.
#pragma once

#include <cstdint>

namespace zk::lab {

class PortReservation {
 public:
  // A fresh port chosen by the kernel; port() is 0 when none can be bound.
  static PortReservation any();
  // `port` itself, held the same way; port() is 0 when it cannot be bound
  // (e.g. a server listens there now, or another process holds it plainly).
  static PortReservation at(uint16_t port);

  PortReservation() = default;
  ~PortReservation();
  PortReservation(PortReservation&& other) noexcept;
  PortReservation& operator=(PortReservation&& other) noexcept;
  PortReservation(const PortReservation&) = delete;
  PortReservation& operator=(const PortReservation&) = delete;

  // The port held, or 0.
  uint16_t port() const { return port_; }

 private:
  void release();

  int fd_ = -1;
  uint16_t port_ = 0;
};

}  // namespace zk::lab
