// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/quorum_packet.h"

#include <cstdio>

namespace zkd::apache {
namespace {

constexpr int32_t kFirstType = static_cast<int32_t>(PacketType::kRequest);
constexpr int32_t kLastType = static_cast<int32_t>(PacketType::kInformAndActivate);
// More ids than any connection holds (each is one addAuth); a bound, so that a
// bad count is refused rather than waited for.
constexpr int32_t kMaxAuthIds = 4096;

// Walks the bytes of a packet that may not all be there yet: each read says
// whether its bytes are present; a length out of bounds is an error.
class Scan {
 public:
  explicit Scan(std::string_view bytes) : bytes_(bytes) {}
  bool has(size_t n) const { return bytes_.size() - pos_ >= n; }
  int32_t int32() {
    zk::wire::Reader r(bytes_.substr(pos_, 4));
    pos_ += 4;
    return r.int32();
  }
  int64_t int64() {
    zk::wire::Reader r(bytes_.substr(pos_, 8));
    pos_ += 8;
    return r.int64();
  }
  std::string_view take(size_t n) {
    std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  size_t pos() const { return pos_; }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

// A length-prefixed field: kNeedMore, kBad, or kOk with `field` (nullopt for
// -1, allowed only where `nullable`).
Decode scan_bytes(Scan& s, size_t max, bool nullable, std::optional<std::string_view>& field,
                  std::string& error, const char* what) {
  if (!s.has(4)) return Decode::kNeedMore;
  const int32_t n = s.int32();
  if (n == -1 && nullable) {
    field.reset();
    return Decode::kOk;
  }
  if (n < 0 || static_cast<size_t>(n) > max) {
    error = std::string(what) + " length " + std::to_string(n) + " out of bounds";
    return Decode::kBad;
  }
  if (!s.has(n)) return Decode::kNeedMore;
  field = s.take(n);
  return Decode::kOk;
}

}  // namespace

std::string to_string(PacketType type) {
  static const char* const kNames[] = {"REQUEST",
                                       "PROPOSAL",
                                       "ACK",
                                       "COMMIT",
                                       "PING",
                                       "REVALIDATE",
                                       "SYNC",
                                       "INFORM",
                                       "COMMITANDACTIVATE",
                                       "NEWLEADER",
                                       "FOLLOWERINFO",
                                       "UPTODATE",
                                       "DIFF",
                                       "TRUNC",
                                       "SNAP",
                                       "OBSERVERINFO",
                                       "LEADERINFO",
                                       "ACKEPOCH",
                                       "INFORMANDACTIVATE"};
  const auto n = static_cast<int32_t>(type);
  if (n < kFirstType || n > kLastType) return "UNKNOWN(" + std::to_string(n) + ")";
  return kNames[n - kFirstType];
}

void append_quorum_packet(const QuorumPacket& packet, std::string& out) {
  zk::wire::Writer w(out);
  w.int32(static_cast<int32_t>(packet.type));
  w.int64(packet.zxid);
  w.buffer(packet.data);
  if (!packet.auth) {
    w.int32(-1);
    return;
  }
  w.vector_size(packet.auth->size());
  for (const AuthId& id : *packet.auth) {
    w.ustring(id.scheme);
    w.ustring(id.id);
  }
}

std::string encode_quorum_packet(const QuorumPacket& packet) {
  std::string out;
  append_quorum_packet(packet, out);
  return out;
}

Decode decode_quorum_packet(std::string_view bytes, QuorumPacket& packet, size_t& consumed,
                            size_t max_data, std::string& error) {
  Scan s(bytes);
  if (!s.has(12)) return Decode::kNeedMore;
  const int32_t type = s.int32();
  if (type < kFirstType || type > kLastType) {
    error = "quorum packet type " + std::to_string(type) + " unknown";
    return Decode::kBad;
  }
  QuorumPacket out;
  out.type = static_cast<PacketType>(type);
  out.zxid = s.int64();
  std::optional<std::string_view> field;
  if (Decode d = scan_bytes(s, max_data, true, field, error, "packet data"); d != Decode::kOk) {
    return d;
  }
  if (field) out.data.emplace(*field);
  if (!s.has(4)) return Decode::kNeedMore;
  const int32_t count = s.int32();
  if (count < -1 || count > kMaxAuthIds) {
    error = "packet authinfo count " + std::to_string(count) + " out of bounds";
    return Decode::kBad;
  }
  if (count >= 0) {
    out.auth.emplace();
    for (int32_t i = 0; i < count; ++i) {
      AuthId id;
      for (std::string* part : {&id.scheme, &id.id}) {
        Decode d = scan_bytes(s, zk::wire::kMaxFieldLength, false, field, error, "authinfo");
        if (d != Decode::kOk) return d;
        part->assign(*field);
      }
      out.auth->push_back(std::move(id));
    }
  }
  packet = std::move(out);
  consumed = s.pos();
  return Decode::kOk;
}

std::string describe(const QuorumPacket& packet) {
  char zxid[24];
  std::snprintf(zxid, sizeof zxid, "0x%llx", static_cast<unsigned long long>(packet.zxid));
  std::string out = to_string(packet.type) + " " + zxid;
  if (packet.data) out += " (" + std::to_string(packet.data->size()) + " bytes)";
  return out;
}

}  // namespace zkd::apache
