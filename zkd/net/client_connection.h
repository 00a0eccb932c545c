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
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "libzk/wire/frame.h"
#include "zkd/net/connection_limiter.h"

namespace zkd::net {

using ConnectionId = uint64_t;
class ClientConnection;
class TlsServer;

// What a connection reports upward. Every call happens on the connection's
// executor. A handler may call send()/close()/close_after_flush() on the
// connection (or on other connections) from inside these calls.
class ConnectionHandler {
 public:
  virtual ~ConnectionHandler() = default;
  // A new connection, before start(): the handler may keep the shared_ptr
  // until closed() for the same connection.
  virtual void opened(const std::shared_ptr<ClientConnection>& connection) = 0;
  // The connection began with four-letter word `word`; `argument` holds the
  // extra bytes some words carry (stmk: 8). Returns the text to send; the
  // connection is closed once it is written.
  virtual std::string four_letter_word(ClientConnection& connection, std::string_view word,
                                       std::string_view argument) = 0;
  // One whole frame payload, without its length prefix. The first frame of a
  // connection is its ConnectRequest.
  virtual void frame(ClientConnection& connection, std::string_view payload) = 0;
  // The connection's TLS handshake succeeded (before its first frame or
  // four-letter word): peer_certificate_subject() is known.
  virtual void secured(ClientConnection& connection) = 0;
  // The connection has ended (peer closed, error, or close()); called exactly
  // once, after which the connection sends nothing.
  virtual void closed(ClientConnection& connection) = 0;
};

// Back-pressure shared by the client connections of one server (Apache's
// globalOutstandingLimit): while the server's `over_limit` predicate holds,
// connections take no further frames from what they have read and stop
// reading their sockets; nothing is dropped and no error is sent. A parked
// connection resumes when the gate finds the predicate false again: the gate
// is re-checked whenever a connection sends (every reply) and when the
// server calls recheck() (after each batch of completed writes, for those
// that complete without a reply).
// Threading: the connections' executor (one thread).
class ReadGate {
 public:
  explicit ReadGate(std::function<bool()> over_limit) : over_limit_(std::move(over_limit)) {}
  // True when a connection may take another frame; false parks the caller's
  // reading (the caller then calls park()).
  bool open() const { return !over_limit_(); }
  // Wakes every parked connection when the limit is no longer exceeded.
  void recheck();
  // `connection` stops reading until recheck() finds the gate open.
  void park(std::weak_ptr<ClientConnection> connection);
  size_t parked() const { return parked_.size(); }

 private:
  std::function<bool()> over_limit_;
  std::vector<std::weak_ptr<ClientConnection>> parked_;
};

struct ConnectionOptions {
  // Apache's jute.maxbuffer: a longer frame closes the connection.
  int32_t max_frame = zk::wire::kDefaultMaxFrame;
  // Apache's zookeeper.nio.sessionlessCnxnTimeout.
  std::chrono::milliseconds handshake_timeout{10000};
  // nullptr: no back-pressure.
  std::shared_ptr<ReadGate> read_gate;
  // TLS (tls_context.h): nullptr serves plaintext only. Set, a connection
  // must begin with a TLS handshake (plaintext is closed without a byte),
  // unless tls_optional (Apache's client.portUnification), where one that
  // begins otherwise is served in plaintext.
  std::shared_ptr<TlsServer> tls;
  bool tls_optional = false;
};

// An IPv4-mapped IPv6 peer address (::ffff:a.b.c.d, from a dual-stack
// listener) as plain IPv4; other endpoints unchanged.
boost::asio::ip::tcp::endpoint unmapped(const boost::asio::ip::tcp::endpoint& endpoint);

class ClientConnection : public std::enable_shared_from_this<ClientConnection> {
 public:
  using tcp = boost::asio::ip::tcp;

  ClientConnection(tcp::socket socket, ConnectionId id, ConnectionHandler& handler,
                   ConnectionOptions options, ConnectionLimiter::Slot slot);
  ~ClientConnection();
  ClientConnection(const ClientConnection&) = delete;
  ClientConnection& operator=(const ClientConnection&) = delete;

  // Starts the reader and writer coroutines and the handshake timer.
  void start();

  ConnectionId id() const { return id_; }
  const tcp::endpoint& remote() const { return remote_; }
  // "/127.0.0.1:54321", as Apache prints a remote socket address.
  std::string remote_text() const;

  // Queues one whole frame (length prefix included) or raw 4lw text. Ignored
  // once the connection is closing.
  void send(std::string bytes);
  // Stops reading, writes what is queued, then closes.
  void close_after_flush();
  // Closes now; queued bytes are dropped and nothing more is sent.
  void close();
  // The session handshake is done: cancels the handshake timeout.
  void mark_established();
  // The handshake frame arrived but waits (the server does not serve yet):
  // the connection closes `within` from now, logging `why`, unless
  // mark_established() comes first. Replaces the handshake timeout.
  void hold_handshake(std::chrono::milliseconds within, std::string why);
  // The read gate (ConnectionOptions::read_gate) opened again: take the
  // frames already read, then read the socket again.
  void resume_reading();

  // Whether the connection runs over TLS, and the subject of the certificate
  // its client presented ("" for none), once secured() was called.
  bool secure() const { return tls_ != nullptr; }
  const std::string& peer_certificate_subject() const { return peer_subject_; }

  bool accepting_sends() const { return state_ == State::kOpen; }
  bool closing() const { return state_ != State::kOpen; }

  // Statistics (cons, stat, crst).
  uint64_t packets_received() const { return packets_received_; }
  uint64_t packets_sent() const { return packets_sent_; }
  size_t queued() const { return queue_.size(); }
  void reset_stats() { packets_received_ = packets_sent_ = 0; }

 private:
  enum class State { kOpen, kDraining, kClosed };
  struct TlsLayer;  // the OpenSSL stream over socket_ (client_connection.cc)

  boost::asio::awaitable<void> read_loop();
  // Before the first read on a TLS listener: tells a TLS hello from
  // plaintext by its first byte, then runs the handshake. False: close.
  boost::asio::awaitable<bool> begin_tls();
  boost::asio::awaitable<void> write_loop();
  // Returns false when the connection must stop reading. Stops early (with
  // input_held_ set) when the read gate closes.
  bool consume_input();
  bool gate_closed() const { return options_.read_gate && !options_.read_gate->open(); }
  bool handle_fresh_bytes();
  // Closes the connection `within` from now, logging `why`, unless it is
  // established (or closed) first.
  void arm_handshake_timer(std::chrono::milliseconds within, std::string why);
  void coroutine_ended(std::string_view which, std::exception_ptr error);

  tcp::socket socket_;
  std::unique_ptr<TlsLayer> tls_;  // set once a TLS handshake begins
  std::string peer_subject_;
  tcp::endpoint remote_;
  ConnectionId id_;
  ConnectionHandler& handler_;
  ConnectionOptions options_;
  ConnectionLimiter::Slot slot_;

  State state_ = State::kOpen;
  bool fresh_ = true;  // no bytes examined yet: a four-letter word is still possible
  bool established_ = false;
  std::string input_;
  std::deque<std::string> queue_;
  bool input_held_ = false;  // whole frames may wait in input_ (the gate closed)
  boost::asio::steady_timer writer_wakeup_;
  boost::asio::steady_timer reader_wakeup_;  // a parked reader waits on it
  boost::asio::steady_timer handshake_timer_;
  int coroutines_running_ = 0;
  bool closed_reported_ = false;
  uint64_t packets_received_ = 0;
  uint64_t packets_sent_ = 0;
};

}  // namespace zkd::net
