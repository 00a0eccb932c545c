// SPDX-License-Identifier: Apache-2.0
// The links between the replicas of an ensemble, as Replication uses them:
// send a Zab message (with its attachment) to a peer, be told of what
// arrives and of a link that went down, and the flow control a streamed
// snapshot needs. zkd's are TCP (peer_transport.h: dialing, TLS, SASL,
// back-off); the simulator has its own over a simulated network.
//
// Threading: the state thread; `receive`, `down` and `drained` are called
// there, never from inside send() or stop().
#pragma once

#include <boost/system/error_code.hpp>
#include <cstdint>
#include <functional>
#include <string>

#include "zkd/peer/peer_codec.h"
#include "zkd/zab/message.h"

namespace zkd::net {

struct PeerAddress {
  zab::ServerId id = 0;
  std::string host;            // a name or an address literal
  uint16_t port = 0;           // the quorum port
  uint16_t election_port = 0;  // Apache's protocol only (zkd's uses the quorum port alone)
};

class PeerLinks {
 public:
  using Receive = std::function<void(PeerPacket packet)>;

  virtual ~PeerLinks() = default;
  // Starts linking with the peers; an error is returned when nothing could
  // start.
  virtual boost::system::error_code start() = 0;
  // Queues packet.message for packet.message.to. Sending to self or to an
  // unknown id is a no-op.
  virtual void send(PeerPacket packet) = 0;
  // Ends every link; nothing is received afterwards.
  virtual void stop() = 0;
  // A server that joined the configuration (a reconfiguration).
  virtual void add_peer(PeerAddress address) = 0;
  // `down` is called each time the link to a peer that was up goes down
  // (except by stop()). Set before start().
  virtual void on_link_down(std::function<void(zab::ServerId peer)> down) = 0;
  // Whether the link to `peer` is up now.
  virtual bool connected(zab::ServerId peer) const = 0;
  // The bytes queued on the link to `peer` (0 when it is down), and
  // `drained`, called each time that queue empties. Set before start().
  virtual uint64_t queued_bytes(zab::ServerId peer) const = 0;
  virtual void on_drained(std::function<void(zab::ServerId peer)> drained) = 0;
};

}  // namespace zkd::net
