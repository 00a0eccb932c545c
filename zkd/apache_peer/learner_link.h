// SPDX-License-Identifier: Apache-2.0
// This server's end of its link to a leader that speaks Apache's learner
// protocol: the zkd core's learner messages become Apache's quorum packets
// and the leader's packets become core messages
// (docs/apache-peer-protocol.md, "zkd learning from an Apache leader").
// One LearnerLink per connection (a core handshake attempt); pure: the
// transport reads and writes the socket.
//
// Where the two protocols differ, the link keeps what the core relies on:
//  - Apache's sync is one packet (DIFF, TRUNC or SNAP) and then the
//    history as PROPOSAL (+ COMMIT) packets, up to NEWLEADER; the core's is
//    a Trunc or Snap, one Diff holding the entries, and NewLeader naming the
//    last one. The link gathers the packets and hands the core that.
//  - Apache acks and commits one zxid per packet; the core acks and commits
//    cumulatively. The link sends one ACK per proposal the core's ack
//    covers, and passes each COMMIT on (a cumulative commit of one).
//  - After UPTODATE an Apache learner sends one more ACK (of the new epoch's
//    zxid 0): the link sends it.
//  - Apache's leader pings with its last proposed zxid, read apart from the
//    queue its proposals are in: the link gives the core the last zxid it
//    was sent instead, so a race on the leader is not taken for a lost
//    proposal. Pings before UPTODATE are dropped (Apache's learner does not
//    answer them: its leader then waits for the NEWLEADER ack).
//  - Session touches, which zkd's followers forward as a write, ride on the
//    answer to the next ping, as Apache's learners send them. A session a
//    client resumed here goes as REVALIDATE at once (the leader then takes
//    this server as its owner); the answer is not waited for.
//  - An observer synced by PROPOSAL + COMMIT pairs holds each proposal until
//    its COMMIT and takes it as an INFORM.
//  - A client's sync goes as a forwarded sync request (of session 0); the
//    leader's SYNC answers are in order, and answer the oldest.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "zkd/apache_peer/learner_payloads.h"
#include "zkd/apache_peer/quorum_packet.h"
#include "zkd/peer/peer_codec.h"
#include "zkd/zab/message.h"

namespace zkd::apache {

// What a zkd learner forwards (the payload of a core Request) is zkd's own
// encoding of a write; the server says what it is in Apache's terms.
struct ForwardedWrite {
  std::optional<ForwardedRequest> request;  // a client's write, to send as REQUEST
  std::vector<AuthId> auth;                 // its connection's ids
  std::vector<SessionTouch> touches;        // sessions kept alive (sent with a ping)
  std::optional<SessionTouch> revalidate;   // a session a client resumed here (REVALIDATE)
};
using ForwardedWriteReader = std::function<ForwardedWrite(const std::string& payload)>;

class LearnerLink {
 public:
  struct Options {
    zab::ServerId self = 0;
    zab::ServerId leader = 0;
    bool observer = false;
    int64_t config_version = 0;  // this server's configuration's (LearnerInfo)
    ForwardedWriteReader read_forwarded;
  };
  explicit LearnerLink(Options options);

  // The first packet on the connection, for the core's FollowerInfo
  // `follower_info` (it names the handshake attempt this link serves).
  QuorumPacket open(const zab::Message& follower_info);
  uint64_t attempt() const { return attempt_; }

  // A core message for the leader: appends the packets it becomes (none for
  // some: a FollowerInfo resent, a ping answer before UPTODATE).
  void from_core(const zab::Message& m, std::vector<QuorumPacket>& out);

  // A packet from the leader: appends the core messages it becomes, and the
  // packets the link answers itself. False (and `error`) when the packet
  // has no place in the protocol here; the connection must close.
  bool from_leader(const QuorumPacket& p, std::vector<net::PeerPacket>& to_core,
                   std::vector<QuorumPacket>& to_leader, std::string& error);

  // After a SNAP packet the connection carries the leader's database
  // (snapshot_stream.h reads it); until then no packet comes.
  bool awaiting_snapshot() const { return awaiting_snapshot_; }
  zab::Zxid snapshot_zxid() const { return snapshot_zxid_; }
  // The database the SNAP announced, as zkd's snapshot (the core's Snap
  // attachment): appends the Snap for the core.
  void snapshot_received(std::string state, std::vector<net::PeerPacket>& to_core);

 private:
  enum class Stage { kDiscovery, kEpochAcked, kSync, kAwaitUpToDate, kBroadcast };
  // A core message of `type` from the leader, of this link's epoch and attempt.
  zab::Message message(zab::MsgType type) const;
  void ack_through(zab::Zxid zxid, std::vector<QuorumPacket>& out);
  bool take_entry(const QuorumPacket& p, std::vector<net::PeerPacket>& to_core, std::string& error);

  Options options_;
  uint64_t attempt_ = 0;
  Stage stage_ = Stage::kDiscovery;
  zab::Epoch epoch_ = 0;
  int64_t new_leader_zxid_ = 0;     // LEADERINFO's (the new epoch, counter 0)
  zab::Zxid acked_epoch_last_ = 0;  // the learner's last zxid, from its AckEpoch
  // Sync: where the Diff starts and what it holds. committed_: the largest
  // zxid known committed (from the sync's start: the leader's history up to
  // it is committed; then each COMMIT or INFORM).
  zab::Zxid base_ = 0;
  std::vector<zab::Entry> diff_;
  zab::Zxid committed_ = 0;
  bool awaiting_snapshot_ = false;
  zab::Zxid snapshot_zxid_ = 0;
  zab::Zxid last_ = 0;             // the last entry the core was sent
  std::deque<zab::Zxid> unacked_;  // proposals the leader has no ACK for
  std::deque<zab::Entry> held_;    // observer: proposals not yet committed
  bool new_leader_acked_ = false;
  int64_t leader_ping_zxid_ = 0;       // echoed in the ping answer
  std::vector<SessionTouch> touches_;  // for the next ping answer
  std::deque<uint64_t> syncs_;         // the core's sync ids, in order sent
};

}  // namespace zkd::apache
