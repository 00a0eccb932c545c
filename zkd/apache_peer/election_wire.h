// SPDX-License-Identifier: Apache-2.0
// The byte formats of Apache ZooKeeper's election port (its
// QuorumCnxManager and FastLeaderElection, 3.5-3.9): the hello a dialer
// sends when it opens a connection, and the length-prefixed notifications
// that follow in both directions. docs/apache-peer-protocol.md, "Election
// port", says who dials and which connection is kept. All integers are
// big-endian.
//
// Hello (dialer -> acceptor, once):
//   int64 protocol version: kElectionProtocolV1 (one address) or
//         kElectionProtocolV2 (addresses joined by '|'); a value >= 0 is a
//         pre-3.5 server's id with nothing after it
//   int64 the dialer's server id
//   int32 n (1..kMaxElectionHelloAddressBytes), then n bytes: "host:port" of
//         the dialer's election address(es)
//
// Frame (both ways, after the hello): int32 n (1..kMaxElectionFrameBytes),
// then n bytes of notification:
//   int32 state (ServerState), int64 proposed leader, int64 proposed zxid,
//   int64 election epoch (the round), int64 peer epoch (the proposed
//   leader's epoch), int32 version, then for version > 1: int32 config
//   length, the config (a QuorumVerifier's text: docs/apache-peer-protocol.md)
// Older servers send 28 bytes (no peer epoch: it is the zxid's epoch) or 40
// (no version); decode_notification reads all three.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zkd::apache {

inline constexpr int64_t kElectionProtocolV1 = -65536;
inline constexpr int64_t kElectionProtocolV2 = -65535;
inline constexpr size_t kMaxElectionHelloAddressBytes = 2048;
inline constexpr size_t kMaxElectionFrameBytes = 512 * 1024;
inline constexpr int32_t kNotificationVersion = 2;

// How the outcome of decoding from a stream of bytes that may not all be
// there yet is told.
enum class Decode { kOk, kNeedMore, kBad };

struct ElectionHello {
  int64_t protocol_version = kElectionProtocolV1;
  int64_t server_id = 0;
  std::vector<std::string> addresses;  // "host:port"; empty from a pre-3.5 server
};

std::string encode_election_hello(const ElectionHello& hello);
// Decodes the hello at the start of `bytes`. kOk sets `hello` and `consumed`;
// kBad sets `error` (an unknown version, an address length out of bounds).
Decode decode_election_hello(std::string_view bytes, ElectionHello& hello, size_t& consumed,
                             std::string& error);

// QuorumPeer.ServerState's numbers.
enum class ServerState : int32_t { kLooking = 0, kFollowing = 1, kLeading = 2, kObserving = 3 };
const char* to_string(ServerState state);

struct Notification {
  ServerState state = ServerState::kLooking;
  int64_t leader = 0;
  int64_t zxid = 0;
  int64_t election_epoch = 0;
  int64_t peer_epoch = 0;
  int32_t version = kNotificationVersion;
  std::string config;  // version > 1 only
  friend bool operator==(const Notification&, const Notification&) = default;
};

// The frame (length included) of `n` as 3.8 sends it: version 2 with its
// config. A notification whose version is 1 or less is encoded in 40 bytes
// (no config length), as 3.4.6-3.4.x servers sent them.
std::string encode_notification_frame(const Notification& n);
// Decodes one frame's body (without its length). False when it is shorter
// than 28 bytes, an unknown state, or a config length out of bounds (`error`
// says which).
bool decode_notification(std::string_view body, Notification& n, std::string& error);

// The frame at the start of `bytes`: kOk sets `body` (a view into `bytes`) and
// `consumed`; kBad when its length is not 1..kMaxElectionFrameBytes.
Decode next_election_frame(std::string_view bytes, std::string_view& body, size_t& consumed);

}  // namespace zkd::apache
