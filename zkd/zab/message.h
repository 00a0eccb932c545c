// SPDX-License-Identifier: Apache-2.0
// Peer messages of the Zab core. The core fills them; the host serialises them
// (zkd/net), sends them over a FIFO link, and steps them into the peer's core.
// Which fields each type uses is listed beside it and in docs/zab.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zkd/zab/types.h"

namespace zkd::zab {

enum class MsgType : uint8_t {
  // Election (any -> any). vote, round, state.
  kVote,
  // Discovery. FollowerInfo (learner -> leader): epoch = acceptedEpoch,
  // attempt, observing = the learner joins as an observer (Inform, no acks;
  // Apache's OBSERVERINFO), else as a follower, voting or not. LeaderInfo
  // (leader -> learner): epoch = the new epoch, attempt.
  // AckEpoch (learner -> leader): epoch = the new epoch, current_epoch,
  // zxid = last logged zxid, attempt, fresh = the learner took the epoch in
  // this handshake (acceptedEpoch was lower), committed = the learner's log
  // base (its newest snapshot, say one installed from a SNAP): it cannot
  // truncate below it, so the leader sends a Snap instead of a Trunc there.
  // Only fresh acks count toward the leader's discovery quorum: a replica
  // helps establish an epoch once.
  kFollowerInfo,
  kLeaderInfo,
  kAckEpoch,
  // Synchronisation (leader -> learner), in this order on the link:
  // [Trunc: zxid = drop entries after it | Snap: zxid = the snapshot's zxid,
  // the host attaches the leader's state at zxid], Diff: zxid = the learner's
  // last zxid the entries follow, entries, committed = the last entry that is
  // committed, or will be once the leader establishes its epoch (its whole
  // initial history; an observer's whole Diff): a host of Apache's protocol
  // sends those as committed; NewLeader: epoch, zxid = the learner's last
  // zxid after the Diff.
  kTrunc,
  kSnap,
  kDiff,
  kNewLeader,
  // AckNewLeader (learner -> leader): epoch, zxid = durable up to, attempt.
  kAckNewLeader,
  // UpToDate (leader -> learner): epoch, zxid = committed up to, payload =
  // the leader's committed membership (membership_note.h). The learner now
  // serves.
  kUpToDate,
  // Broadcast. Proposal: epoch, entries (one). Ack (learner -> leader):
  // epoch, zxid = durable up to (cumulative). Commit: epoch, zxid =
  // committed up to (cumulative).
  kProposal,
  kAck,
  kCommit,
  // Ping: epoch. Leader -> learner every tick: zxid = the leader's last
  // proposed zxid (to an observer: the last zxid it sent that observer),
  // committed = committed up to (0 until the leader is established); a
  // learner whose log ends before zxid lost a proposal (an observer: an
  // Inform), and one that missed a Commit catches up. The learner answers
  // with zxid = what it acked (a lost Ack is repaired; an observer's answer
  // only shows it is alive). busy (leader -> learner): a learner's Snap is
  // due; until a Ping that is not busy the learner allows Config::busy_limit.
  // request_id: the leader's confirmation round (Config::quorum_sync), which
  // the learner's answer echoes.
  kPing,
  // Request (learner -> leader): payload, a forwarded write to preprocess.
  kRequest,
  // Sync (learner -> leader): request_id. SyncReply (leader -> learner):
  // request_id, zxid = apply up to this before answering the sync.
  kSync,
  kSyncReply,
  // Inform (leader -> observer): epoch, zxid = the observer's last zxid the
  // entries follow, entries = committed txns, in order. Observers get Inform
  // instead of Proposal and Commit, and never Ack.
  kInform,
  // Digest (leader -> synced learner): epoch, zxid, digest = the leader's
  // tree digest right after applying zxid. Carried, not interpreted: the
  // learner's host compares it with its own at that zxid. New types go last
  // so that the wire numbers of the older ones stay.
  kDigest,
  // SnapChunk (leader -> learner): the hosts', never stepped into a core. A
  // Snap whose attachment is empty is streamed: SnapChunk messages follow it
  // on the link, zxid = the Snap's, each attachment the next bytes of the
  // state; the last has no attachment (docs/replication.md, "Streamed
  // snapshots").
  kSnapChunk,
  // LeadershipRequest (learner -> leader): epoch. A synced follower asks to
  // lead (ClickHouse Keeper's rqld); the leader's host hands leadership over
  // to it as ydld does (Zab::transfer). The hosts', never stepped into a core.
  kLeadershipRequest,
};

enum class PeerState : uint8_t { kLooking, kFollowing, kLeading };

const char* to_string(MsgType type);
const char* to_string(PeerState state);

struct Message {
  MsgType type = MsgType::kPing;
  ServerId from = 0;
  ServerId to = 0;
  Epoch epoch = 0;
  Epoch current_epoch = 0;  // AckEpoch only
  Zxid zxid = 0;
  Zxid committed = 0;    // Ping (leader -> learner), Diff; AckEpoch: the learner's log base
  uint64_t round = 0;    // Vote: the sender's election round (logical clock)
  uint64_t attempt = 0;  // handshake: learner's incarnation << 32 | its count
  uint64_t request_id = 0;
  uint64_t digest = 0;     // Digest only
  bool fresh = false;      // AckEpoch only
  bool observing = false;  // FollowerInfo only
  bool busy = false;       // Ping (leader -> learner) only
  // Vote only: the vote is a leader's hand-over nomination, or taken from one
  // (Election; docs/zab.md, "Leadership transfer").
  bool nomination = false;
  Vote vote{};
  PeerState state = PeerState::kLooking;
  std::vector<Entry> entries{};
  std::string payload{};
};

// One line, for logs and transcripts: "Proposal e1 [1:3]".
std::string describe(const Message& m);

}  // namespace zkd::zab
