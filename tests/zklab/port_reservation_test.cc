// SPDX-License-Identifier: Apache-2.0
// PortReservation against the kernel: a held port is refused to a plain bind
// and to clients, yet a server binding it with SO_REUSEADDR listens there;
// at() holds a given port unless a server listens there; letting go
// (destruction or move) frees it.
#include "zklab/process/port_reservation.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace {

using zk::lab::PortReservation;

sockaddr_in loopback(uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  return addr;
}

// A TCP socket that closes itself.
struct Socket {
  Socket() : fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {}
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
  // 0, or the errno of bind().
  int bind(uint16_t port, bool reuse_address) {
    const int on = 1;
    if (reuse_address && ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0) {
      return errno;
    }
    sockaddr_in addr = loopback(port);
    return ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 ? 0 : errno;
  }
  // 0, or the errno of connect().
  int connect(uint16_t port) {
    sockaddr_in addr = loopback(port);
    return ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 ? 0 : errno;
  }
  int fd;
};

TEST(PortReservation, HeldPortIsRefusedToOthersButAServerListensThere) {
  const PortReservation held = PortReservation::any();
  ASSERT_NE(held.port(), 0);

  Socket plain;
  EXPECT_EQ(plain.bind(held.port(), /*reuse_address=*/false), EADDRINUSE);
  Socket client;
  EXPECT_EQ(client.connect(held.port()), ECONNREFUSED);

  Socket server;
  ASSERT_EQ(server.bind(held.port(), /*reuse_address=*/true), 0);
  ASSERT_EQ(::listen(server.fd, 4), 0);
  Socket second_client;
  EXPECT_EQ(second_client.connect(held.port()), 0);
}

TEST(PortReservation, AtHoldsThatPortUnlessAServerListensThere) {
  uint16_t port = 0;
  {
    const PortReservation picked = PortReservation::any();
    port = picked.port();
    ASSERT_NE(port, 0);
    // A second holder of the same port (two labs' tools may both hold it).
    const PortReservation again = PortReservation::at(port);
    EXPECT_EQ(again.port(), port);
  }
  const PortReservation held = PortReservation::at(port);
  ASSERT_EQ(held.port(), port);
  Socket plain;
  EXPECT_EQ(plain.bind(port, /*reuse_address=*/false), EADDRINUSE);

  Socket server;
  ASSERT_EQ(server.bind(port, /*reuse_address=*/true), 0);
  ASSERT_EQ(::listen(server.fd, 4), 0);
  EXPECT_EQ(PortReservation::at(port).port(), 0) << "a listened-on port cannot be held";
}

TEST(PortReservation, TwoReservationsNeverShareAPort) {
  std::vector<PortReservation> held;
  for (int i = 0; i < 200; ++i) {
    held.push_back(PortReservation::any());
    ASSERT_NE(held.back().port(), 0);
    for (size_t j = 0; j + 1 < held.size(); ++j) ASSERT_NE(held[j].port(), held.back().port());
  }
}

TEST(PortReservation, LettingGoFreesThePort) {
  PortReservation held = PortReservation::any();
  const uint16_t port = held.port();
  ASSERT_NE(port, 0);

  PortReservation moved = std::move(held);
  EXPECT_EQ(held.port(), 0);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(moved.port(), port);
  Socket while_moved;
  EXPECT_EQ(while_moved.bind(port, /*reuse_address=*/false), EADDRINUSE);

  moved = PortReservation();
  EXPECT_EQ(moved.port(), 0);
  Socket after;
  EXPECT_EQ(after.bind(port, /*reuse_address=*/false), 0);
}

}  // namespace
