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
//   byte  fresh (0 or 1)
//   int64 vote.leader, vote.zxid, vote.epoch
//   int32 state (zab::PeerState)
//   int32 entry count, then per entry: int64 zxid, blob payload
//   blob  payload
//   blob  attachment
// where a blob is an int64 length >= 0 followed by that many bytes. Nothing
// may follow the attachment.
//
// Hello, kPeerHelloSize bytes: uint32 magic kPeerMagic, uint32 version
// kPeerProtocolVersion, int64 the sender's server id.
#pragma once

#include <cstddef>
#include <cstdint>
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

inline constexpr uint32_t kPeerMagic = 0x7a6b6470;   // "zkdp"
inline constexpr uint32_t kPeerProtocolVersion = 2;  // 2: Digest messages
inline constexpr size_t kPeerHelloSize = 16;

std::string encode_peer_hello(zab::ServerId id);
// The id in a hello of this magic and version; false for anything else.
// `bytes` must be exactly kPeerHelloSize bytes long.
bool decode_peer_hello(std::string_view bytes, zab::ServerId& id);

}  // namespace zkd::net
