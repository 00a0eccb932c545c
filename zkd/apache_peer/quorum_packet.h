// SPDX-License-Identifier: Apache-2.0
// Apache ZooKeeper's QuorumPacket: what a leader and its learners exchange on
// the quorum port (Leader, Learner and LearnerHandler, 3.5-3.9). Jute,
// big-endian, written back to back on the connection with no frame around
// them; a packet ends where its last field does:
//
//   int32  type (PacketType)
//   int64  zxid
//   buffer data      (int32 length, -1 for none, then the bytes)
//   vector authinfo  (int32 count, -1 for none, then count x Id: ustring
//                     scheme, ustring id); only REQUEST carries one
//
// What data holds for each type is in learner_payloads.h; which side sends
// which, and in what order, in docs/apache-peer-protocol.md, "Quorum port".
// After a SNAP packet the leader writes its database in snapshot form on the
// same connection, outside any packet (ApacheSnapStream reads it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libzk/wire/jute.h"
#include "zkd/apache_peer/election_wire.h"

namespace zkd::apache {

// Leader.java's numbers.
enum class PacketType : int32_t {
  kRequest = 1,
  kProposal = 2,
  kAck = 3,
  kCommit = 4,
  kPing = 5,
  kRevalidate = 6,
  kSync = 7,
  kInform = 8,
  kCommitAndActivate = 9,
  kNewLeader = 10,
  kFollowerInfo = 11,
  kUpToDate = 12,
  kDiff = 13,
  kTrunc = 14,
  kSnap = 15,
  kObserverInfo = 16,
  kLeaderInfo = 17,
  kAckEpoch = 18,
  kInformAndActivate = 19,
};
// "PROPOSAL", ...; "UNKNOWN(n)" for a number not above.
std::string to_string(PacketType type);

struct AuthId {
  std::string scheme;
  std::string id;
  friend bool operator==(const AuthId&, const AuthId&) = default;
};

struct QuorumPacket {
  PacketType type = PacketType::kPing;
  int64_t zxid = 0;
  zk::wire::Buffer data;                    // nullopt: none (length -1)
  std::optional<std::vector<AuthId>> auth;  // nullopt: none (count -1)
  friend bool operator==(const QuorumPacket&, const QuorumPacket&) = default;
};

// Appends `packet`'s bytes to `out`.
void append_quorum_packet(const QuorumPacket& packet, std::string& out);
std::string encode_quorum_packet(const QuorumPacket& packet);

// The packet at the start of `bytes`. kOk sets `packet` and `consumed`;
// kNeedMore when `bytes` ends inside it; kBad (with `error`) for a type out of
// 1..19, a negative length below -1, or data longer than `max_data` (Apache
// reads packets with jute.maxbuffer's bound; the leader's proposals carry at
// most that much data plus a txn's header).
Decode decode_quorum_packet(std::string_view bytes, QuorumPacket& packet, size_t& consumed,
                            size_t max_data, std::string& error);

// One line for logs: "PROPOSAL 0x100000003 (57 bytes)".
std::string describe(const QuorumPacket& packet);

}  // namespace zkd::apache
