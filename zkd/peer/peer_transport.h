// SPDX-License-Identifier: Apache-2.0
// The links between the replicas of an ensemble: one TCP connection per pair
// of servers, carrying Zab core messages (zkd/zab/message.h) FIFO.
//
// Who dials: the server with the larger id connects to the smaller one (as
// Apache's QuorumCnxManager keeps the connection the larger id opened); the
// smaller one only accepts. So each pair has exactly one connection, and a
// restarted server re-establishes its links by itself. A connection begins
// with a hello (magic, protocol version, the dialer's id); the acceptor drops
// connections from ids not in the configuration, and a new connection from an
// id replaces the old one. An accepted hello is answered with the acceptor's
// own (the dialer checks it reached the server it meant); the link is up, and
// carries packets, once both hellos are through (peer_codec.h has the bytes).
// A connection that sends no hello within 10 s is closed.
//
// Delivery: send() queues the packet on that peer's connection and returns at
// once. Packets to a peer whose link is down are dropped (the core repairs
// what it needs: docs/zab.md "Links"), as are the packets still queued when a
// link breaks. A link whose queue exceeds max_queued_bytes (a paused peer) is
// closed; one packet alone on an empty queue is always taken. A packet whose
// encoding exceeds max_packet_bytes is dropped (logged) at the sender. Packets
// on one link arrive in order, whole, or not at all.
//
// Reconnects: a dialer that loses its link, or cannot connect, tries again
// after a backoff that doubles from min_backoff to max_backoff and resets once
// connected. A peer whose name does not resolve is unreachable like one that
// does not answer, never given up: each failed resolution is logged (name and
// error) and tried again after a backoff of its own, resolve_min_backoff
// doubling to resolve_max_backoff.
//
// Listening: on this server's own entry's host and port, or, with
// listen_on_all_ips (quorumListenOnAllIPs), on every address at that port.
// When the own host does not resolve at start(), start() succeeds anyway:
// the links this server dials come up, and the listener keeps resolving the
// name, with the resolve back-off, logging each failure, until it resolves;
// then it listens (a bind error from then on is logged and retried alike).
//
// Framing on the wire: 4-byte big-endian length, then the packet encoded by
// encode_peer_packet(). A frame longer than max_packet_bytes, one that does
// not decode, or a packet whose `from` is not the link's peer or whose `to` is
// not this server, closes that link (logged) and no other.
//
// TLS (sslQuorum): with tls_server and tls_client set, an accepted connection
// must begin with a TLS handshake (unless tls_optional: Apache's
// portUnification, which also takes plaintext peers during a move to TLS),
// and a dialed one begins with one. Both ends present the key store's
// certificate and check the other's against the trust store; with
// verify_host, the dialer also checks that the certificate it got names the
// host it dialed, and the acceptor that the dialer's names its address. A
// peer whose certificate fails is refused and logged; the hello follows the
// handshake.
//
// SASL (quorum.auth.*, as Apache's QuorumLearner authenticates to its
// QuorumServer): with sasl_client set, a dialer says so in its hello
// (peer_codec.h) and then runs the exchange in auth frames; with
// sasl_server set, an acceptor answers them and takes the link up once the
// exchange completes, and a dialer that does not authenticate is refused
// when sasl_required_by_acceptor. An acceptor without sasl_server answers
// "not offered", which a dialer refuses when sasl_required_by_dialer. A
// refused peer is logged as a failed TLS peer is. The hello timeout covers
// the exchange; auth frames are at most kMaxPeerAuthFrame bytes.
//
// Time: the connect and hello deadlines, the back-off and the acceptor's
// retry are zkd::Timers from options.new_timer, the refusal log's interval is
// read from options.clock (both the server's Env's; by default the real
// ones). The readers and writers park on WakeUps (zkd/net/wake_up.h), which
// are events, not time. The transport reads no clock itself.
//
// Threading: everything runs on the io_context's thread (zkd's state thread);
// construct, start(), send() and stop() there. `receive` is called on that
// thread, one packet at a time, in arrival order per link.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkd/clock/clock.h"
#include "zkd/net/tls_context.h"
#include "zkd/peer/peer_codec.h"
#include "zkd/peer/peer_links.h"
#include "zkd/zab/message.h"

namespace zkd::net {

// PeerPacket, encode_peer_packet() and decode_peer_packet() are in
// peer_codec.h, with the byte formats.

// One side of a quorum SASL exchange: called with the other side's token
// (the dialer's first call with none), it says what to send next.
struct PeerAuthStep {
  enum class Outcome { kContinue, kComplete, kFailed } outcome = Outcome::kFailed;
  std::optional<std::string> token;  // to send; nothing: no token
  std::string who;                   // acceptor, kComplete: the dialer's authenticated id
  std::string error;                 // kFailed: why
};
using PeerAuthExchange = std::function<PeerAuthStep(std::optional<std::string_view> token)>;

inline constexpr size_t kMaxPeerAuthFrame = 64 * 1024;

struct PeerTransportOptions {
  std::chrono::milliseconds min_backoff{50};
  std::chrono::milliseconds max_backoff{1000};
  // Between the attempts to resolve a name that did not resolve: a peer's,
  // or this server's own listen address (see above).
  std::chrono::milliseconds resolve_min_backoff{100};
  std::chrono::milliseconds resolve_max_backoff{5000};
  // quorumListenOnAllIPs: listen on every address (net::kAllAddresses)
  // rather than on this server's own entry's host.
  bool listen_on_all_ips = false;
  uint64_t max_packet_bytes = 1ull << 30;    // a whole snapshot from a zkd 0.1 leader
  uint64_t max_queued_bytes = 256ull << 20;  // per link
  // TLS (see above); both null: plaintext.
  std::shared_ptr<TlsServer> tls_server;
  std::shared_ptr<boost::asio::ssl::context> tls_client;
  bool tls_optional = false;
  bool verify_host = true;         // the dialer checks the accepting peer's certificate
  bool verify_client_host = true;  // the acceptor checks the dialer's
  // SASL (see above): each call starts one link's exchange (the dialer's
  // with the dialed peer's host); null: none.
  std::function<PeerAuthExchange(const std::string& host)> sasl_client;
  std::function<PeerAuthExchange()> sasl_server;
  bool sasl_required_by_dialer = false;    // quorum.auth.learnerRequireSasl
  bool sasl_required_by_acceptor = false;  // quorum.auth.serverRequireSasl
  // Time (see above): timers that fire on the io_context's thread, and the
  // clock; each must outlive the transport. Null: the real ones
  // (zkd/clock/real_time.h: new_real_timer(io), real_clock()).
  TimerFactory new_timer;
  Clock* clock = nullptr;
};

class PeerTransport final : public PeerLinks {
 public:
  // `peers` is the whole ensemble, this server (`self`) included: its entry
  // says where to listen.
  PeerTransport(boost::asio::io_context& io, zab::ServerId self, std::vector<PeerAddress> peers,
                Receive receive, PeerTransportOptions options = {});
  ~PeerTransport() override;
  PeerTransport(const PeerTransport&) = delete;
  PeerTransport& operator=(const PeerTransport&) = delete;

  // Binds this server's peer port and starts accepting and dialing. A bind
  // error is returned (nothing started), as are invalid_argument when `self`
  // is not in `peers` and already_started on a second call or after stop().
  // A host that does not resolve yet is not an error (see "Listening").
  boost::system::error_code start() override;
  // Queues packet.message for packet.message.to (see "Delivery"). Sending to
  // self or to an unknown id is a no-op.
  void send(PeerPacket packet) override;
  // Closes every link and stops dialing; receive is not called afterwards.
  void stop() override;
  // A server that joined the configuration (a reconfiguration): its links
  // are accepted (and dialed, when its id is the smaller) from now on. An id
  // already known keeps its address.
  void add_peer(PeerAddress address) override;

  // `down` is called (posted to the io_context, never from inside send() or
  // stop()) each time the link to a peer that was up goes down, except by
  // stop(). A replacement connection is not a down. Set before start().
  void on_link_down(std::function<void(zab::ServerId peer)> down) override;

  // Whether the link to `peer` is up now (for 4lw and logs).
  bool connected(zab::ServerId peer) const override;

  // Flow control for a sender of many packets (a streamed snapshot): the
  // bytes queued or being written on the link to `peer` (0 when it is
  // down), and `drained`, called (posted, as `down` is) each time a write
  // leaves that link's queue empty. Set before start().
  uint64_t queued_bytes(zab::ServerId peer) const override;
  void on_drained(std::function<void(zab::ServerId peer)> drained) override;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace zkd::net
