// SPDX-License-Identifier: Apache-2.0
#include "zkd/zab/message.h"

#include <string>

namespace zkd::zab {

std::string zxid_string(Zxid zxid) {
  return std::to_string(epoch_of(zxid)) + ":" + std::to_string(counter_of(zxid));
}

const char* to_string(MsgType type) {
  switch (type) {
    case MsgType::kVote:
      return "Vote";
    case MsgType::kFollowerInfo:
      return "FollowerInfo";
    case MsgType::kLeaderInfo:
      return "LeaderInfo";
    case MsgType::kAckEpoch:
      return "AckEpoch";
    case MsgType::kTrunc:
      return "Trunc";
    case MsgType::kSnap:
      return "Snap";
    case MsgType::kDiff:
      return "Diff";
    case MsgType::kNewLeader:
      return "NewLeader";
    case MsgType::kAckNewLeader:
      return "AckNewLeader";
    case MsgType::kUpToDate:
      return "UpToDate";
    case MsgType::kProposal:
      return "Proposal";
    case MsgType::kAck:
      return "Ack";
    case MsgType::kCommit:
      return "Commit";
    case MsgType::kPing:
      return "Ping";
    case MsgType::kRequest:
      return "Request";
    case MsgType::kSync:
      return "Sync";
    case MsgType::kSyncReply:
      return "SyncReply";
    case MsgType::kInform:
      return "Inform";
    case MsgType::kDigest:
      return "Digest";
    case MsgType::kSnapChunk:
      return "SnapChunk";
    case MsgType::kLeadershipRequest:
      return "LeadershipRequest";
  }
  return "?";
}

const char* to_string(PeerState state) {
  switch (state) {
    case PeerState::kLooking:
      return "LOOKING";
    case PeerState::kFollowing:
      return "FOLLOWING";
    case PeerState::kLeading:
      return "LEADING";
  }
  return "?";
}

namespace {

std::string entries_string(const std::vector<Entry>& entries) {
  std::string s = "[";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) s += " ";
    s += zxid_string(entries[i].zxid);
  }
  return s + "]";
}

std::string attempt_string(uint64_t attempt) {
  return std::to_string(attempt >> 32) + "." + std::to_string(attempt & 0xffffffffu);
}

}  // namespace

std::string describe(const Message& m) {
  std::string s = to_string(m.type);
  const std::string e = " e" + std::to_string(m.epoch);
  switch (m.type) {
    case MsgType::kVote:
      s += " " + std::string(to_string(m.state)) + " round=" + std::to_string(m.round) +
           " leader=" + std::to_string(m.vote.leader) + " zxid=" + zxid_string(m.vote.zxid) +
           " epoch=" + std::to_string(m.vote.epoch) + (m.nomination ? " nomination" : "");
      break;
    case MsgType::kFollowerInfo:
      s += " accepted=" + std::to_string(m.epoch) + " attempt=" + attempt_string(m.attempt) +
           (m.observing ? " observing" : "");
      break;
    case MsgType::kLeaderInfo:
      s += e + " attempt=" + attempt_string(m.attempt);
      break;
    case MsgType::kAckEpoch:
      s += e + " current=" + std::to_string(m.current_epoch) + " last=" + zxid_string(m.zxid) +
           (m.fresh ? "" : " (not fresh)");
      break;
    case MsgType::kTrunc:
    case MsgType::kSnap:
    case MsgType::kAckNewLeader:
    case MsgType::kUpToDate:
    case MsgType::kAck:
    case MsgType::kCommit:
    case MsgType::kNewLeader:
      s += e + " " + zxid_string(m.zxid);
      break;
    case MsgType::kDiff:
    case MsgType::kInform:
      s += e + " after " + zxid_string(m.zxid) + " " + entries_string(m.entries);
      break;
    case MsgType::kProposal:
      s += e + " " + entries_string(m.entries);
      break;
    case MsgType::kPing:
      s += e + " " + zxid_string(m.zxid);
      if (m.committed != 0) s += " commit=" + zxid_string(m.committed);
      if (m.busy) s += " busy";
      break;
    case MsgType::kRequest:
      s += " " + m.payload;
      break;
    case MsgType::kSync:
      s += " id=" + std::to_string(m.request_id);
      break;
    case MsgType::kSyncReply:
      s += e + " id=" + std::to_string(m.request_id) + " " + zxid_string(m.zxid);
      break;
    case MsgType::kDigest:
      s += e + " " + zxid_string(m.zxid) + " digest=" + std::to_string(m.digest);
      break;
    case MsgType::kSnapChunk:
      s += " " + zxid_string(m.zxid);
      break;
    case MsgType::kLeadershipRequest:
      s += e;
      break;
  }
  return s;
}

}  // namespace zkd::zab
