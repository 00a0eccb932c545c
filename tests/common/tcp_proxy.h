// SPDX-License-Identifier: Apache-2.0
// TcpProxy: a loopback TCP forwarder between a ZooKeeper client under test
// and a server, that fails the network on demand: it drops every connection,
// refuses new ones, accepts and then never answers (a server that took the
// TCP connection but does not serve), or loses one reply on purpose (the
// request reaches the server and is applied, the reply never reaches the
// client and the connection is closed: a network failing at the worst
// moment).
//
// What the client sends is forwarded as it comes. What the server sends is
// forwarded frame by frame (4-byte length, then the payload; a reply's
// payload begins with its xid), so that one reply can be cut whole: pings
// (xid -2) and watch notifications (xid -1) are never cut, nor the
// connection's first frame (the ConnectResponse). Bytes that are not frames
// (a four-letter word's answer) are forwarded as they come.
//
// Runs its own io_context on its own thread. Every public method may be
// called from any thread; the ones that change what the proxy does return
// once it has done so.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace zk::test {

class TcpProxy {
 public:
  // Listens on a free 127.0.0.1 port and forwards to 127.0.0.1:target_port.
  explicit TcpProxy(uint16_t target_port);
  // Closes every connection, held ones too.
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  uint16_t port() const;
  // 127.0.0.1:port(), a connect string.
  std::string address() const { return "127.0.0.1:" + std::to_string(port()); }

  // Closes every forwarded connection (both sides).
  void drop_all();
  // While refusing, existing connections are dropped and new ones are closed
  // as soon as they are accepted.
  void set_refusing(bool refusing);
  // While silent, new connections are accepted and then held open without
  // forwarding or answering anything. Held connections stay silent after
  // set_silent(false), until the client closes them or the proxy goes.
  void set_silent(bool silent);
  // Waits until at least `count` connections are held silently; false if that
  // did not happen within `deadline`.
  bool wait_for_held(int count, std::chrono::milliseconds deadline);
  // Client connections accepted and forwarded so far.
  int forwarded_connections() const;

  // The next reply to a request (past a connection's handshake, on any
  // connection) is dropped and its connection closed both ways.
  void cut_next_reply();
  // Replies cut so far.
  int cuts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace zk::test
