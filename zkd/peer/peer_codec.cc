// SPDX-License-Identifier: Apache-2.0
#include "zkd/peer/peer_codec.h"

#include <utility>

#include "libzk/wire/jute.h"

namespace zkd::net {

namespace {

using zk::wire::Reader;
using zk::wire::Writer;

constexpr int32_t kPacketVersion = 2;  // 2: the digest field
// The smallest encoded entry: its zxid and an empty payload's length.
constexpr uint64_t kMinEntrySize = 16;
// The fields before the entries: version and type, ten int64s, the flag,
// the vote's three int64s, the state and the entry count.
constexpr size_t kFixedSize = 4 + 4 + 10 * 8 + 1 + 3 * 8 + 4 + 4;
constexpr size_t kBlobLengthSize = 8;

void write_blob(Writer& out, std::string_view bytes) {
  out.int64(static_cast<int64_t>(bytes.size()));
  out.bytes().append(bytes);
}

// jute's buffer() caps fields at 2 MiB; a snapshot attachment is far larger.
// On success `out` views the blob's bytes in the reader's and the reader
// moves past them.
bool read_blob(Reader& in, std::string_view& out) {
  int64_t size = in.int64();
  if (!in.ok() || size < 0 || static_cast<uint64_t>(size) > in.remaining()) return false;
  std::string_view rest = in.rest();
  out = rest.substr(0, static_cast<size_t>(size));
  in = Reader(rest.substr(static_cast<size_t>(size)));
  return true;
}

bool read_blob(Reader& in, std::string& out) {
  std::string_view blob;
  if (!read_blob(in, blob)) return false;
  out.assign(blob);
  return true;
}

}  // namespace

size_t peer_packet_size(const PeerPacket& packet) {
  size_t size = kFixedSize + kBlobLengthSize + packet.message.payload.size() + kBlobLengthSize +
                packet.attachment.size();
  for (const zab::Entry& e : packet.message.entries) size += kMinEntrySize + e.payload.size();
  return size;
}

void append_peer_packet(const PeerPacket& packet, std::string& bytes) {
  const zab::Message& m = packet.message;
  // Reserved at once: grown field by field, the frame was reallocated (and
  // its payloads copied again) several times.
  bytes.reserve(bytes.size() + peer_packet_size(packet));
  Writer out(bytes);
  out.int32(kPacketVersion);
  out.int32(static_cast<int32_t>(m.type));
  out.int64(m.from);
  out.int64(m.to);
  out.int64(m.epoch);
  out.int64(m.current_epoch);
  out.int64(m.zxid);
  out.int64(m.committed);
  out.int64(static_cast<int64_t>(m.round));
  out.int64(static_cast<int64_t>(m.attempt));
  out.int64(static_cast<int64_t>(m.request_id));
  out.int64(static_cast<int64_t>(m.digest));
  // One byte: AckEpoch's fresh, a Ping's busy, a Vote's nomination or a
  // FollowerInfo's observing (older zkd read it as fresh on every type and
  // ignore it but on an AckEpoch).
  out.boolean(m.type == zab::MsgType::kPing           ? m.busy
              : m.type == zab::MsgType::kVote         ? m.nomination
              : m.type == zab::MsgType::kFollowerInfo ? m.observing
                                                      : m.fresh);
  out.int64(m.vote.leader);
  out.int64(m.vote.zxid);
  out.int64(m.vote.epoch);
  out.int32(static_cast<int32_t>(m.state));
  out.int32(static_cast<int32_t>(m.entries.size()));
  for (const zab::Entry& e : m.entries) {
    out.int64(e.zxid);
    write_blob(out, e.payload);
  }
  write_blob(out, m.payload);
  write_blob(out, packet.attachment);
}

std::string encode_peer_packet(const PeerPacket& packet) {
  std::string bytes;
  append_peer_packet(packet, bytes);
  return bytes;
}

bool decode_peer_packet(std::string_view bytes, PeerPacket& packet) {
  Reader in(bytes);
  zab::Message& m = packet.message;
  if (in.int32() != kPacketVersion) return false;
  int32_t type = in.int32();
  if (type < 0 || type > static_cast<int32_t>(zab::MsgType::kLeadershipRequest)) return false;
  m.type = static_cast<zab::MsgType>(type);
  m.from = in.int64();
  m.to = in.int64();
  m.epoch = in.int64();
  m.current_epoch = in.int64();
  m.zxid = in.int64();
  m.committed = in.int64();
  m.round = static_cast<uint64_t>(in.int64());
  m.attempt = static_cast<uint64_t>(in.int64());
  m.request_id = static_cast<uint64_t>(in.int64());
  m.digest = static_cast<uint64_t>(in.int64());
  const bool flag = in.boolean();
  m.fresh = m.type == zab::MsgType::kAckEpoch && flag;
  m.busy = m.type == zab::MsgType::kPing && flag;
  m.nomination = m.type == zab::MsgType::kVote && flag;
  m.observing = m.type == zab::MsgType::kFollowerInfo && flag;
  m.vote.leader = in.int64();
  m.vote.zxid = in.int64();
  m.vote.epoch = in.int64();
  int32_t state = in.int32();
  if (state < 0 || state > static_cast<int32_t>(zab::PeerState::kLeading)) return false;
  m.state = static_cast<zab::PeerState>(state);
  int32_t count = in.int32();
  if (!in.ok() || count < 0 || static_cast<uint64_t>(count) * kMinEntrySize > in.remaining()) {
    return false;
  }
  m.entries.clear();
  m.entries.reserve(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    zab::Entry& e = m.entries.emplace_back();
    e.zxid = in.int64();
    std::string_view payload;
    if (!read_blob(in, payload)) return false;
    e.payload = std::string(payload);
  }
  if (!read_blob(in, m.payload)) return false;
  if (!read_blob(in, packet.attachment)) return false;
  return in.at_end();
}

std::string encode_peer_hello(zab::ServerId id, bool sasl) {
  std::string bytes;
  Writer out(bytes);
  out.int32(static_cast<int32_t>(sasl ? kPeerSaslMagic : kPeerMagic));
  out.int32(static_cast<int32_t>(kPeerProtocolVersion));
  out.int64(id);
  return bytes;
}

bool decode_peer_hello(std::string_view bytes, zab::ServerId& id, bool& sasl) {
  if (bytes.size() != kPeerHelloSize) return false;
  Reader in(bytes);
  const auto magic = static_cast<uint32_t>(in.int32());
  if (magic != kPeerMagic && magic != kPeerSaslMagic) return false;
  if (static_cast<uint32_t>(in.int32()) != kPeerProtocolVersion) return false;
  sasl = magic == kPeerSaslMagic;
  id = in.int64();
  return in.at_end();
}

std::string encode_peer_auth_frame(const PeerAuth& auth) {
  std::string bytes;
  Writer out(bytes);
  const size_t start = out.begin_frame();
  out.int32(static_cast<int32_t>(kPeerAuthTag));
  out.int32(static_cast<int32_t>(auth.status));
  out.buffer(auth.token);
  out.end_frame(start);
  return bytes;
}

bool decode_peer_auth(std::string_view payload, PeerAuth& auth) {
  Reader in(payload);
  if (static_cast<uint32_t>(in.int32()) != kPeerAuthTag) return false;
  const int32_t status = in.int32();
  if (status < 0 || status > static_cast<int32_t>(PeerAuthStatus::kNotOffered)) return false;
  auth.status = static_cast<PeerAuthStatus>(status);
  auth.token = in.buffer();
  return in.at_end();
}

}  // namespace zkd::net
