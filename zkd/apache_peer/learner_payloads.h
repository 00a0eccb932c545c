// SPDX-License-Identifier: Apache-2.0
// What the data of a QuorumPacket (quorum_packet.h) holds, per type, as
// Apache ZooKeeper 3.5-3.9 writes it. Big-endian; DataOutputStream's layouts
// (no jute lengths) unless said. docs/apache-peer-protocol.md, "Quorum port",
// gives the packets' order and the zxid each carries.
//
//   FOLLOWERINFO, OBSERVERINFO  LearnerInfo (jute record): int64 server id,
//                               int32 protocol version, int64 config version;
//                               older learners send the id alone (8 bytes)
//                               or no config version (12)
//   LEADERINFO                  int32 protocol version (kLearnerProtocolVersion)
//   ACKEPOCH                    int32 the learner's currentEpoch, or -1 when
//                               it had already accepted the new epoch
//   PING, learner -> leader     (int64 session, int32 timeout ms) per session
//                               its clients kept alive since the last one
//   REVALIDATE, learner ->      int64 session, int32 timeout ms
//   REVALIDATE, -> learner      int64 session, one byte: 1 valid, 0 expired
//   REQUEST                     int64 session, int32 cxid, int32 op type, the
//                               request's body (its jute record, no header);
//                               the caller's ids ride in the packet's authinfo
//   PROPOSAL, INFORM            the txn, as the txn log holds it (TxnHeader,
//                               record, an optional TxnDigest): tree::read_txn
//   NEWLEADER                   the leader's configuration's text (3.5+)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zkd::apache {

// The learner protocol version 3.4-3.9 servers send (0x10000).
inline constexpr int32_t kLearnerProtocolVersion = 0x10000;

struct LearnerInfo {
  int64_t server_id = 0;
  int32_t protocol_version = kLearnerProtocolVersion;
  int64_t config_version = 0;
  friend bool operator==(const LearnerInfo&, const LearnerInfo&) = default;
};
std::string encode_learner_info(const LearnerInfo& info);
// Reads the 20-byte form and the older 8- and 12-byte ones (the fields they
// lack keep LearnerInfo's defaults, config version 0); nothing for any other
// length.
std::optional<LearnerInfo> decode_learner_info(std::string_view data);

std::string encode_int32(int32_t value);
// The int32 that is the whole of `data`; nothing for any other length.
std::optional<int32_t> decode_int32(std::string_view data);

// ACKEPOCH's data says this instead of a currentEpoch when the learner had
// already accepted the leader's epoch (so its ack must not count).
inline constexpr int32_t kEpochAlreadyAccepted = -1;

using SessionTouch = std::pair<int64_t, int32_t>;  // session, timeout ms
std::string encode_touches(const std::vector<SessionTouch>& touches);
// Nothing when the length is not a multiple of 12.
std::optional<std::vector<SessionTouch>> decode_touches(std::string_view data);

std::string encode_revalidate_request(int64_t session, int32_t timeout_ms);
std::optional<SessionTouch> decode_revalidate_request(std::string_view data);
struct RevalidateReply {
  int64_t session = 0;
  bool valid = false;
};
std::string encode_revalidate_reply(const RevalidateReply& reply);
std::optional<RevalidateReply> decode_revalidate_reply(std::string_view data);

struct ForwardedRequest {
  int64_t session = 0;
  int32_t cxid = 0;
  int32_t type = 0;  // the client's op code (zk::wire::OpCode)
  std::string body;
  friend bool operator==(const ForwardedRequest&, const ForwardedRequest&) = default;
};
std::string encode_forwarded_request(const ForwardedRequest& request);
// Nothing when `data` is shorter than the 16 bytes before the body.
std::optional<ForwardedRequest> decode_forwarded_request(std::string_view data);

}  // namespace zkd::apache
