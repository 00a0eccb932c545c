// SPDX-License-Identifier: Apache-2.0
// A client connection as the server's parts see it: whole frames in (through
// a ConnectionHandler), frames out, closing, the handshake's deadline, and
// what the four-letter words report. zkd's connections are TCP
// (tcp_client_connection.h: framing, four-letter-word detection, TLS); the
// simulator has its own, without sockets. The read gate (ReadGate) is the
// back-pressure every connection of a server shares.
//
// Threading: all member functions must be called on the server's state
// thread (zkd runs one io_context thread); the handler is called there too.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace zkd::net {

using ConnectionId = uint64_t;
class ClientConnection;

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

  // Events only counted (Apache's metrics); nothing to do by default.
  // A connection from `address` was refused at accept: maxClientCnxns.
  virtual void rejected(std::string_view /*address*/) {}
  // The client closed the connection (a read found its end or a reset),
  // before the server closed it (Apache's connection_drop_count).
  virtual void dropped_by_peer(ClientConnection& /*connection*/) {}
  // The connection stopped reading at the read gate (ReadGate).
  virtual void throttled(ClientConnection& /*connection*/) {}
  // The connection's TLS handshake begins (it ends with secured() or closed()).
  virtual void tls_handshake_started(ClientConnection& /*connection*/) {}
  // The connection is closed for making no session in time (before closed()).
  virtual void handshake_expired(ClientConnection& /*connection*/) {}
};

// Back-pressure shared by the client connections of one server, as Apache's
// globalOutstandingLimit and request throttle hold clients back: while the
// server is `over_limit`, a connection that is not `exempt` (in zkd: one
// with requests in process, Apache's "outstanding count > 0") takes no
// further frames from what it has read and stops reading its socket;
// nothing is dropped and no error is sent. A connection with nothing in
// process is still read, so a client that waits for its answers is served
// while others flood. A parked connection resumes when the gate finds it
// open again: the server calls recheck() after each batch of completed
// writes, and recheck(id) when it answers that connection.
// Threading: the connections' executor (one thread).
class ReadGate {
 public:
  ReadGate(std::function<bool()> over_limit, std::function<bool(ConnectionId)> exempt)
      : over_limit_(std::move(over_limit)), exempt_(std::move(exempt)) {}
  // True when connection `id` may take another frame; false parks the
  // caller's reading (the caller then calls park()).
  bool open(ConnectionId id) const { return !over_limit_() || exempt_(id); }
  // Wakes every parked connection that is open now.
  void recheck();
  // Wakes connection `id` when it is parked and open now.
  void recheck(ConnectionId id);
  // `connection` stops reading until a recheck finds it open; parking a
  // parked connection again changes nothing.
  void park(ConnectionId id, std::weak_ptr<ClientConnection> connection);
  size_t parked() const { return parked_.size(); }

 private:
  std::function<bool()> over_limit_;
  std::function<bool(ConnectionId)> exempt_;
  std::unordered_map<ConnectionId, std::weak_ptr<ClientConnection>> parked_;
};

// An IPv4-mapped IPv6 peer address (::ffff:a.b.c.d, from a dual-stack
// listener) as plain IPv4; other endpoints unchanged.
boost::asio::ip::tcp::endpoint unmapped(const boost::asio::ip::tcp::endpoint& endpoint);

class ClientConnection : public std::enable_shared_from_this<ClientConnection> {
 public:
  using tcp = boost::asio::ip::tcp;

  ClientConnection(ConnectionId id, tcp::endpoint remote) : id_(id), remote_(std::move(remote)) {}
  virtual ~ClientConnection() = default;
  ClientConnection(const ClientConnection&) = delete;
  ClientConnection& operator=(const ClientConnection&) = delete;

  ConnectionId id() const { return id_; }
  const tcp::endpoint& remote() const { return remote_; }
  // "/127.0.0.1:54321", as Apache prints a remote socket address.
  std::string remote_text() const;

  // Queues one whole frame (length prefix included) or raw 4lw text. Ignored
  // once the connection is closing.
  virtual void send(std::string bytes) = 0;
  // Stops reading, writes what is queued, then closes.
  virtual void close_after_flush() = 0;
  // Closes now; queued bytes are dropped and nothing more is sent.
  virtual void close() = 0;
  // The session handshake is done: cancels the handshake timeout.
  virtual void mark_established() = 0;
  // The handshake frame arrived but waits (the server does not serve yet):
  // the connection closes `within` from now, logging `why`, unless
  // mark_established() comes first. Replaces the handshake timeout.
  virtual void hold_handshake(std::chrono::milliseconds within, std::string why) = 0;
  // The read gate opened again: take the frames already read, then read
  // again.
  virtual void resume_reading() = 0;

  // Whether the connection runs over TLS, and the subject of the certificate
  // its client presented ("" for none), once secured() was called.
  virtual bool secure() const = 0;
  virtual const std::string& peer_certificate_subject() const = 0;

  virtual bool accepting_sends() const = 0;
  bool closing() const { return !accepting_sends(); }

  // Statistics (cons, stat, crst).
  uint64_t packets_received() const { return packets_received_; }
  uint64_t packets_sent() const { return packets_sent_; }
  virtual size_t queued() const = 0;
  void reset_stats() { packets_received_ = packets_sent_ = 0; }

 protected:
  uint64_t packets_received_ = 0;
  uint64_t packets_sent_ = 0;

 private:
  ConnectionId id_;
  tcp::endpoint remote_;
};

}  // namespace zkd::net
