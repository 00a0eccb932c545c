// SPDX-License-Identifier: Apache-2.0
// The links between the replicas of an ensemble in Apache ZooKeeper's own
// protocol (zoo.cfg `zkd.peerProtocol=apache`), so that zkd servers and
// Apache's share one ensemble (docs/apache-peer-protocol.md). It carries the
// same zab core messages as zkd's PeerTransport (peer_links.h), translated:
//
// Election port (server.N's third port): one connection per pair of
// servers, kept when the larger id dialed it, as Apache's QuorumCnxManager
// keeps it. This server dials every server with a smaller id, again after a
// backoff when the link breaks, and keeps what servers with larger ids
// dial; a smaller id's connection is closed (Apache's smaller server dials
// only to be dialed back, which the dialer here does anyway). A connection
// starts with the dialer's hello and then carries notifications
// (election_wire.h), which are the core's votes (vote_translation.h).
//
// Quorum port (the second): a learner dials its leader when its core starts
// a handshake (FollowerInfo) and keeps that connection for the handshake and
// the broadcast that follows; a new handshake dials again (and a refused
// dial is tried again, with back-off, while the core keeps the handshake).
// LearnerLink translates both ways. A leader takes each learner's
// connection on its quorum port (a learner's new connection replaces its
// old one); LeaderLink translates. A Snap's state, which the core streams
// in zkd's snapshot form, is gathered whole, then written after the SNAP
// packet in Apache's (options.snapshot_to_apache).
//
// Link state told to the core: a peer's link is up while its election
// connection or a quorum connection with it is; `down` when the last one of
// them closes, and always when this learner's connection to its leader
// closes.
//
// Not built yet (refused at start-up by zkd's configuration check, not
// here): TLS (sslQuorum) and quorum SASL on these links.
//
// Time and threading as PeerTransport's: timers from options.new_timer, no
// clock read; everything on the io_context's thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkd/apache_peer/leader_link.h"
#include "zkd/apache_peer/learner_link.h"
#include "zkd/clock/clock.h"
#include "zkd/peer/peer_links.h"

namespace zkd::apache {

// The database an Apache leader streamed after SNAP (snap_stream.h's bytes,
// signature included) as zkd's snapshot payload (the Snap's attachment), or
// why it cannot be read.
struct ConvertedSnapshot {
  std::string payload;
  std::string error;  // non-empty: the stream does not read
};
using SnapshotConverter = std::function<ConvertedSnapshot(std::string_view stream, int64_t zxid)>;
// zkd's snapshot payload (a streamed Snap's chunks, whole) as the stream an
// Apache learner reads after SNAP (signature included), or why not.
using SnapshotWriter = std::function<ConvertedSnapshot(std::string_view payload)>;

struct ApacheTransportOptions {
  bool observer = false;  // this server is an observer
  // This server's configuration as Apache writes it, for notifications.
  std::function<std::string()> config_text;
  // The epoch this server's leader and followers agreed on (zab::Status's),
  // 0 while none: its LEADING and FOLLOWING votes carry it.
  std::function<int64_t()> agreed_epoch;
  int64_t config_version = 0;
  ForwardedWriteReader read_forwarded;
  SnapshotConverter convert_snapshot;
  // Leading: what Apache learners forward, as core Request payloads; their
  // REVALIDATEs; a Snap's state in Apache's form.
  ForwardedWriteWriter write_forwarded;
  SessionCheck revalidate;
  SnapshotWriter snapshot_to_apache;
  std::chrono::milliseconds min_backoff{50};
  std::chrono::milliseconds max_backoff{1000};
  // While this server's own host does not resolve: as PeerTransportOptions'.
  std::chrono::milliseconds resolve_min_backoff{100};
  std::chrono::milliseconds resolve_max_backoff{5000};
  // quorumListenOnAllIPs: both ports on every address (net::kAllAddresses);
  // the election hello still names this server's own entry, as Apache's.
  bool listen_on_all_ips = false;
  // The most data one quorum packet may carry (Apache's jute.maxbuffer
  // bounds a txn; this leaves room) and the most a SNAP's stream may hold.
  size_t max_packet_data = 64u << 20;
  size_t max_snapshot_bytes = size_t{8} << 30;
  TimerFactory new_timer;  // null: real timers on the io_context
};

class ApacheTransport final : public net::PeerLinks {
 public:
  // `peers`: the whole ensemble, this server included (its entry says where
  // to listen); each with its quorum and election ports.
  ApacheTransport(boost::asio::io_context& io, zab::ServerId self,
                  std::vector<net::PeerAddress> peers, Receive receive,
                  ApacheTransportOptions options);
  ~ApacheTransport() override;
  ApacheTransport(const ApacheTransport&) = delete;
  ApacheTransport& operator=(const ApacheTransport&) = delete;

  // Binds both ports and starts dialing. Errors as PeerTransport::start(),
  // and, as there, an own host that does not resolve yet is retried, both
  // ports bound once it resolves, while the dialers run.
  boost::system::error_code start() override;
  void send(net::PeerPacket packet) override;
  void stop() override;
  void add_peer(net::PeerAddress address) override;
  void on_link_down(std::function<void(zab::ServerId peer)> down) override;
  bool connected(zab::ServerId peer) const override;
  // A Snap's chunks are gathered, not queued: 0, and `drained` after each
  // chunk taken, so that the core's host streams on.
  uint64_t queued_bytes(zab::ServerId) const override { return 0; }
  void on_drained(std::function<void(zab::ServerId peer)> drained) override;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace zkd::apache
