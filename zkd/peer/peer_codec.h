// SPDX-License-Identifier: Apache-2.0
// The byte formats of the peer protocol (zkd talks only to zkd): the packet a
// frame carries and the hello that opens a connection. Framing and links are
// in peer_transport.h.
//
// Packet, version 1 (all integers big-endian, as zk::wire::Writer writes them):
//   int32 version (1)
//   int32 type (zab::MsgType)
//   int64 from, to, epoch, current_epoch, zxid, committed
//   int64 round, attempt, request_id (the uint64 bits)
//   byte  fresh (AckEpoch) or busy (Ping), 0 or 1
//   int64 vote.leader, vote.zxid, vote.epoch
//   int32 state (zab::PeerState)
//   int32 entry count, then per entry: int64 zxid, blob payload
//   blob  payload
//   blob  attachment
// where a blob is an int64 length >= 0 followed by that many bytes. Nothing
// may follow the attachment.
//
// Hello, kPeerHelloSize bytes: uint32 magic, uint32 version
// kPeerProtocolVersion, int64 the sender's server id. The magic is
// kPeerMagic, or kPeerSaslMagic from a dialer that authenticates with SASL
// next (quorum.auth.enableSasl).
//
// Auth frame (quorum SASL, before the link carries packets; framed like a
// packet): uint32 kPeerAuthTag, int32 status (PeerAuthStatus), then the
// SASL token as a jute buffer (int32 length, -1 for none). Nothing follows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "zkd/zab/message.h"

namespace zkd::net {

// A core message plus what the host attaches to it: for a Snap message, the
// leader's state machine at message.zxid (a snapshot payload); empty
// otherwise.
struct PeerPacket {
  zab::Message message;
  std::string attachment;
};

// Encodes every field of the message (entries, payload and committed
// included) and the attachment; decode_peer_packet() gives back an equal
// packet. False when `bytes` is not a whole packet of this version (the
// packet is then unspecified).
std::string encode_peer_packet(const PeerPacket& packet);
bool decode_peer_packet(std::string_view bytes, PeerPacket& packet);
// encode_peer_packet() appended to `out` (saves a copy behind a frame header).
void append_peer_packet(const PeerPacket& packet, std::string& out);
// The number of bytes encode_peer_packet() makes of `packet`.
size_t peer_packet_size(const PeerPacket& packet);

inline constexpr uint32_t kPeerMagic = 0x7a6b6470;      // "zkdp"
inline constexpr uint32_t kPeerSaslMagic = 0x7a6b6473;  // "zkds": SASL follows
inline constexpr uint32_t kPeerProtocolVersion = 2;     // 2: Digest messages
inline constexpr size_t kPeerHelloSize = 16;

// `sasl`: the sender authenticates next (kPeerSaslMagic).
std::string encode_peer_hello(zab::ServerId id, bool sasl = false);
// The id in a hello of either magic and this version, and whether SASL
// follows; false for anything else. `bytes` must be exactly kPeerHelloSize
// bytes long.
bool decode_peer_hello(std::string_view bytes, zab::ServerId& id, bool& sasl);

inline constexpr uint32_t kPeerAuthTag = 0x7a6b6461;  // "zkda"
// What an auth frame says.
enum class PeerAuthStatus : int32_t {
  kToken = 0,       // the exchange goes on with this token
  kComplete = 1,    // from the acceptor: the dialer is authenticated (a final token may come)
  kNotOffered = 2,  // from the acceptor: it has no quorum SASL
};
struct PeerAuth {
  PeerAuthStatus status = PeerAuthStatus::kToken;
  std::optional<std::string> token;
};
// A whole frame (length prefix included) carrying `auth`.
std::string encode_peer_auth_frame(const PeerAuth& auth);
// False when `payload` (a frame without its length) is not an auth frame.
bool decode_peer_auth(std::string_view payload, PeerAuth& auth);

}  // namespace zkd::net
