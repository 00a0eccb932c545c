// SPDX-License-Identifier: Apache-2.0
// A client connection without a socket, for a transport of the caller's
// own (the simulator's, the socket-less server tests'): the client hands
// each frame's payload to receive(), and what the server sends waits in
// `sent` (payloads, without the length prefix) until the client takes it.
// close() ends it as a TCP connection ends: the handler hears of it once,
// after the call, posted to `io` (the state thread). A held handshake
// (hold_handshake) is never closed by time: the caller decides.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <string>

#include "zkd/net/client_connection.h"

namespace zkd::net {

class QueuedClientConnection final : public ClientConnection {
 public:
  // The remote address is 127.0.0.1, with a port made from `id`.
  QueuedClientConnection(boost::asio::io_context& io, ConnectionHandler& handler, ConnectionId id)
      : ClientConnection(id, {boost::asio::ip::make_address("127.0.0.1"),
                              static_cast<uint16_t>(10000 + id % 50000)}),
        io_(io),
        handler_(handler) {}

  // The client sends one frame's payload (ignored once closed).
  void receive(const std::string& payload) {
    if (!open_) return;
    ++packets_received_;
    handler_.frame(*this, payload);
  }

  void send(std::string bytes) override {
    if (!open_) return;
    ++packets_sent_;
    sent.push_back(bytes.substr(4));
  }
  void close_after_flush() override { close(); }
  void close() override {
    if (!open_) return;
    open_ = false;
    boost::asio::post(io_, [self = shared_from_this(), this] { handler_.closed(*this); });
  }
  void mark_established() override { established = true; }
  void hold_handshake(std::chrono::milliseconds, std::string) override {}
  void resume_reading() override {}
  bool secure() const override { return false; }
  const std::string& peer_certificate_subject() const override { return subject_; }
  bool accepting_sends() const override { return open_; }
  size_t queued() const override { return 0; }

  std::deque<std::string> sent;  // payloads the server sent, oldest first
  bool established = false;      // mark_established() was called

 private:
  boost::asio::io_context& io_;
  ConnectionHandler& handler_;
  bool open_ = true;
  std::string subject_;
};

}  // namespace zkd::net
