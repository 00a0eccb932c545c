// SPDX-License-Identifier: Apache-2.0
// One client TCP connection: a reader coroutine that cuts the byte stream into
// frames (zk::wire::next_frame) and hands each to a ConnectionHandler, and a
// writer coroutine that drains a queue of outgoing frames with batched
// (gathering) writes. Protocol facts handled here, §1.1 of docs/wire-protocol.md:
//   - the first four bytes of a fresh connection may be a four-letter word:
//     the handler's text is written and the connection closed;
//   - a negative or oversize frame length closes the connection, no reply;
//   - a connection that is not marked established within the handshake
//     timeout (Apache: 10 s) is closed.
// The handshake deadline is a zkd::Timer from ConnectionOptions::new_timer
// (the server's Env's); the reader and writer park on WakeUps (wake_up.h),
// which are events, not time. The connection reads no clock itself.
// Everything above framing (handshake, sessions, requests) is the handler's.
//
// Ownership: create with std::make_shared; start() makes the two coroutines
// hold the connection alive until both end. The handler must outlive every
// connection that was started with it.
// Threading: all member functions must be called on the executor of the
// socket (zkd runs one io_context thread); the handler is called there too.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include "libzk/wire/frame.h"
#include "zkd/clock/clock.h"
#include "zkd/net/client_connection.h"
#include "zkd/net/connection_limiter.h"
#include "zkd/net/wake_up.h"

namespace zkd::net {

class TlsServer;

struct ConnectionOptions {
  // Apache's jute.maxbuffer: a longer frame closes the connection.
  int32_t max_frame = zk::wire::kDefaultMaxFrame;
  // Apache's zookeeper.nio.sessionlessCnxnTimeout.
  std::chrono::milliseconds handshake_timeout{10000};
  // Makes the timer of each connection's handshake deadline, on the
  // connection's thread (the server: its Env's, env.new_timer(io)). Null:
  // ClientListener sets the real one on its io_context (new_real_timer); a
  // TcpClientConnection must be given one.
  TimerFactory new_timer;
  // nullptr: no back-pressure.
  std::shared_ptr<ReadGate> read_gate;
  // TLS (tls_context.h): nullptr serves plaintext only. Set, a connection
  // must begin with a TLS handshake (plaintext is closed without a byte),
  // unless tls_optional (Apache's client.portUnification), where one that
  // begins otherwise is served in plaintext.
  std::shared_ptr<TlsServer> tls;
  bool tls_optional = false;
};

class TcpClientConnection final : public ClientConnection {
 public:
  // options.new_timer must be set (ClientListener sets it when it is not).
  TcpClientConnection(tcp::socket socket, ConnectionId id, ConnectionHandler& handler,
                      ConnectionOptions options, ConnectionLimiter::Slot slot);
  ~TcpClientConnection() override;

  // Starts the reader and writer coroutines and the handshake timer.
  void start();

  // Queues one whole frame (length prefix included) or raw 4lw text. Ignored
  // once the connection is closing.
  void send(std::string bytes) override;
  // Stops reading, writes what is queued, then closes.
  void close_after_flush() override;
  // Closes now; queued bytes are dropped and nothing more is sent.
  void close() override;
  // The session handshake is done: cancels the handshake timeout.
  void mark_established() override;
  // The handshake frame arrived but waits (the server does not serve yet):
  // the connection closes `within` from now, logging `why`, unless
  // mark_established() comes first. Replaces the handshake timeout.
  void hold_handshake(std::chrono::milliseconds within, std::string why) override;
  // The read gate (ConnectionOptions::read_gate) opened again: take the
  // frames already read, then read the socket again.
  void resume_reading() override;

  // Whether the connection runs over TLS, and the subject of the certificate
  // its client presented ("" for none), once secured() was called.
  bool secure() const override { return tls_ != nullptr; }
  const std::string& peer_certificate_subject() const override { return peer_subject_; }

  bool accepting_sends() const override { return state_ == State::kOpen; }

  size_t queued() const override { return queue_.size(); }

 private:
  enum class State { kOpen, kDraining, kClosed };
  struct TlsLayer;  // the OpenSSL stream over socket_ (client_connection.cc)

  boost::asio::awaitable<void> read_loop();
  // Before the first read on a TLS listener: tells a TLS hello from
  // plaintext by its first byte, then runs the handshake. False: close.
  boost::asio::awaitable<bool> begin_tls();
  boost::asio::awaitable<void> write_loop();
  // Returns false when the connection must stop reading. Stops early (with
  // input_held_ set) when the read gate closes, the answers back up, or the
  // turn's frames are taken.
  bool consume_input();
  bool gate_closed() const { return options_.read_gate && !options_.read_gate->open(id()); }
  // More answers wait to be sent than kMostUnsentBytes.
  bool output_backlogged() const { return unsent_bytes_ > kMostUnsentBytes; }

  // Frames taken from one read before the connection lets the others go
  // first (fairness between clients on the one state thread).
  static constexpr int kFramesPerTurn = 32;
  // Answers a connection may have waiting to be sent before it stops taking
  // requests: a client that does not read its answers is held back by TCP
  // instead of growing the server's memory.
  static constexpr size_t kMostUnsentBytes = 1 << 20;
  bool handle_fresh_bytes();
  // A read of the open connection failed: the client left (counted) or an
  // error (logged).
  void read_failed(const boost::system::error_code& ec);
  // Closes the connection `within` from now, logging `why`, unless it is
  // established (or closed) first.
  void arm_handshake_timer(std::chrono::milliseconds within, std::string why);
  void coroutine_ended(std::string_view which, std::exception_ptr error);

  tcp::socket socket_;
  std::unique_ptr<TlsLayer> tls_;  // set once a TLS handshake begins
  std::string peer_subject_;
  ConnectionHandler& handler_;
  ConnectionOptions options_;
  ConnectionLimiter::Slot slot_;

  State state_ = State::kOpen;
  bool fresh_ = true;  // no bytes examined yet: a four-letter word is still possible
  bool established_ = false;
  std::string input_;
  std::deque<std::string> queue_;
  bool input_held_ = false;  // whole frames may wait in input_ (the gate closed, the turn ended)
  bool turn_ended_ = false;  // kFramesPerTurn frames were taken: yield before the next
  size_t unsent_bytes_ = 0;  // queued and being written
  bool reader_waits_for_writer_ = false;  // reading stopped: output_backlogged()
  WakeUp writer_wakeup_;
  WakeUp reader_wakeup_;  // a parked reader waits on it
  std::unique_ptr<Timer> handshake_timer_;
  int coroutines_running_ = 0;
  bool closed_reported_ = false;
};

}  // namespace zkd::net
