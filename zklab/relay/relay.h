// SPDX-License-Identifier: Apache-2.0
// Relay: the TCP relays on the peer links of a lab, with the faults of
// NetworkFaults applied to them (the semantics are in lab_network.h). Knows
// nothing of zkd: it forwards bytes between 127.0.0.1 ports.
//
// A link (a, b), a < b, is a relay of the pair a, b: it listens on `listen`
// (a port one node's zoo.cfg names for the other; in a lab of zkd's own
// protocol, the port b's zoo.cfg names for a's quorum port) and, for every
// connection it accepts there, connects to `target` (the other node's real
// port) and forwards bytes both ways, in chunks as read, each delivered when
// due. A pair may have several relays (relay_links.h); cuts and delays name
// the pair, so they apply to all of them. On a link with a hello_port the
// dialer's first bytes wait until its election hello is whole and go on as
// one chunk with the hello's port rewritten (election_hello.h).
//   - not cut: a chunk read at time t is written at t + the link's delay (the
//     sum of both nodes' delays in NetworkFaults::slow, 0 when neither is
//     slow), in order; a chunk never overtakes an earlier one, even when the
//     delay shrinks. End of stream or an error on one side closes both sides,
//     after the chunks read before it are delivered. A target that refuses
//     (or any connect error) closes the accepted connection; with
//     RelayOptions::refused_retry, a refusing target is tried again (every
//     25 ms) for that long first, what the dialer sends meanwhile waiting:
//     the dialer saw its connect succeed, so a target that listens a moment
//     later (an Apache leader binds its quorum port once it leads) must not
//     turn that into a reset.
//   - cut (the link is in NetworkFaults::cut): the connections on the link
//     become silent for good: what they read, or have read and not yet
//     delivered, is dropped; an end of stream or error on one side closes
//     only that side. A connection accepted while the link is cut is read
//     and dropped likewise and never connected to the target.
//   - when a link stops being cut, its silent connections are closed (both
//     sides), so both ends reconnect; new connections are forwarded again.
// Back-pressure: a direction stops reading while kUndelayedQueuedBytes wait
// in it (kMaxQueuedBytes while its link is slow: a delayed link holds what
// was read in the last `delay`), and both of the relay's sockets of a
// connection have kSocketBufferBytes of kernel buffer each way, so a sender
// is held back by a slow receiver about as soon as on a direct link (with
// the kernel's autotuned buffers and a 16 MiB queue the relay took in about
// 25 MB before a sender felt it, against 4 MB on a direct link, so a leader
// streaming a snapshot ran that far ahead of its follower).
//
// Threading: everything runs on the io_context's thread; construct, start(),
// set_faults(), faults(), port(), stats() and stop() there (or before the
// io_context runs).
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "zklab/relay/network_faults.h"
#include "zklab/relay/relay_links.h"

namespace zk::lab {

// RelayLink (a link: who dials whom, which port to which) is in relay_links.h.

struct RelayStats {
  uint64_t accepted = 0;         // connections accepted, every link
  uint64_t read_bytes = 0;       // read from either side (then queued or dropped)
  uint64_t forwarded_bytes = 0;  // written to the other side
  uint64_t dropped_bytes = 0;    // read (or queued) and dropped because of a cut
};

struct RelayOptions {
  // How long a target that refuses is tried again before the accepted
  // connection is closed; 0: closed at the first refusal.
  std::chrono::milliseconds refused_retry{0};
};

class Relay {
 public:
  // Per direction of a connection, on a slow link and otherwise.
  static constexpr size_t kMaxQueuedBytes = 16u << 20;
  static constexpr size_t kUndelayedQueuedBytes = 256u << 10;
  // SO_RCVBUF and SO_SNDBUF of every socket the relay accepts or connects
  // (the kernel doubles it for its bookkeeping).
  static constexpr int kSocketBufferBytes = 256 << 10;

  Relay(boost::asio::io_context& io, std::vector<RelayLink> links, RelayOptions options = {});
  ~Relay();  // stop()
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  // Listens on every link's port; empty on success, else which port could not
  // be had and why (then nothing listens).
  std::string start();
  // Replaces the faults in force; takes effect before it returns (cut
  // connections are silent, healed ones closed). Cuts and delays naming no
  // link or node of the relay are kept but have no effect.
  void set_faults(const NetworkFaults& faults);
  const NetworkFaults& faults() const;
  // The port link `index` (in the order given) listens on, once started.
  uint16_t port(size_t index) const;
  RelayStats stats() const;
  // Stops listening and closes every connection. Idempotent.
  void stop();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace zk::lab
