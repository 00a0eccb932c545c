// SPDX-License-Identifier: Apache-2.0
// The one piece of Apache ZooKeeper's protocol the relays know: the hello a
// server sends first on a connection it opens to another's election port
// (QuorumCnxManager's InitialMessage, 3.5-3.9; zkd speaks it too with
// zkd.peerProtocol=apache). It names the dialer's election address, and a
// server with a larger id that is dialed by a smaller one closes that
// connection and dials back *to that address*. In a lab, where every peer
// address a node's zoo.cfg names is a relay, the dial-back would bypass the
// relays; so the relay of a link into a larger id's election port rewrites
// the port in the hello to the relay port the larger id names for the
// dialer (RelayLink::hello_port), and the dial-back goes through the link
// like every other connection.
//
// Hello (big-endian): int64 protocol version, -65536 (one address) or -65535
// (addresses joined by '|'), int64 server id, int32 n (1..2048), n bytes of
// "host:port". A version >= 0 is a pre-3.5 server's id with no address:
// nothing to rewrite.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zk::lab {

struct HelloRewrite {
  enum class Outcome {
    kNeedMore,   // `bytes` is a prefix of a hello: read more first
    kRewritten,  // `bytes` to send instead: the hello with its port(s) changed, then the rest
    kAsIs,       // not a hello with an address (or an unknown one): relay the bytes unchanged
  };
  Outcome outcome = Outcome::kNeedMore;
  std::string bytes;
};

// The bytes a dialer sent so far, from the start of its connection, with the
// port of every address in its hello set to `port`.
HelloRewrite rewrite_election_hello(std::string_view bytes, uint16_t port);

}  // namespace zk::lab
