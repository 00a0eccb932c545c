// SPDX-License-Identifier: Apache-2.0
// This server's end of its link to a learner that speaks Apache's learner
// protocol, while this server leads: the zkd core's leader messages become
// Apache's quorum packets and the learner's packets become core messages
// (docs/apache-peer-protocol.md, "zkd leading Apache learners"). One
// LeaderLink per accepted connection; pure: the transport reads and writes
// the socket, and turns a Snap's state into Apache's stream.
//
// Where the two protocols differ, the link keeps what an Apache learner
// relies on:
//  - The core's Diff is one message; Apache's learner takes DIFF (unless a
//    TRUNC or SNAP opened the sync) and one PROPOSAL per entry. Entries the
//    Diff says are committed (or will be at establishment) go as PROPOSAL +
//    COMMIT pairs before NEWLEADER, as Apache's leader syncs; the others
//    only after NEWLEADER (an Apache 3.8 learner drops its pending proposals
//    at NEWLEADER and dies on a COMMIT with none pending), and NEWLEADER's
//    ACK acks only what came before it.
//  - An Apache follower must see COMMITs in the order of its pending
//    proposals, each naming the oldest; the core commits cumulatively. The
//    link keeps the proposals it sent without a COMMIT and sends one COMMIT
//    per proposal a core Commit (or UpToDate, or a Ping's commit point)
//    covers.
//  - NEWLEADER carries the configuration's text; its ACK (zxid: the new
//    epoch, counter 0) is the core's AckNewLeader. The ACK an Apache learner
//    sends after UPTODATE (the same zxid) is dropped.
//  - The learner's ping answer carries the sessions its clients kept alive:
//    they go to the core as a forwarded touch, and the answer as the core's
//    Ping answer (the last zxid acked, the round of the last Ping).
//  - A forwarded sync (a REQUEST of type sync) becomes a core Sync; the
//    core's SyncReply a SYNC, in the order asked.
//  - The core pings every learner each tick, in its handshake too; an Apache
//    learner exits on a PING before its sync began, and Apache's leader
//    pings only learners it synced: no PING goes before UPTODATE.
//  - REVALIDATE is answered here, from the server's session table.
//  - A reconfiguration's txn is committed with COMMITANDACTIVATE (an
//    observer's INFORMANDACTIVATE), naming this leader, so that an Apache
//    learner takes the new membership.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "zkd/apache_peer/learner_link.h"
#include "zkd/apache_peer/quorum_packet.h"
#include "zkd/peer/peer_codec.h"
#include "zkd/zab/message.h"

namespace zkd::apache {

// What an Apache learner forwarded, as the payload of a core Request (zkd's
// encoding of a write; the server makes it).
using ForwardedWriteWriter = std::function<std::string(const ForwardedWrite& write)>;
// Whether `session` is alive (REVALIDATE); a live one is touched with
// `timeout_ms`.
using SessionCheck = std::function<bool(int64_t session, int32_t timeout_ms)>;

class LeaderLink {
 public:
  struct Options {
    zab::ServerId self = 0;
    uint64_t attempt = 0;  // the core's handshake number for this connection
    std::function<std::string()> config_text;
    ForwardedWriteWriter write_forwarded;
    SessionCheck revalidate;
  };
  explicit LeaderLink(Options options);

  // The learner's first packet (FOLLOWERINFO or OBSERVERINFO): the core's
  // FollowerInfo; nothing (and `error`) for anything else.
  std::optional<zab::Message> open(const QuorumPacket& first, std::string& error);
  zab::ServerId learner() const { return learner_; }

  // A core message for this learner: appends the packets it becomes. A Snap
  // begins a SNAP whose packet and state the transport writes
  // (snap_packet()); its SnapChunks are the transport's.
  void from_core(const zab::Message& m, std::vector<QuorumPacket>& out);
  QuorumPacket snap_packet(zab::Zxid zxid);

  // A packet from the learner: appends the core messages it becomes, and the
  // packets the link answers itself. False (and `error`) when the packet has
  // no place here; the connection must close.
  bool from_learner(const QuorumPacket& p, std::vector<net::PeerPacket>& to_core,
                    std::vector<QuorumPacket>& to_learner, std::string& error);

 private:
  enum class Stage { kOpened, kEpochSent, kSync, kNewLeaderSent, kUpToDate };
  zab::Message message(zab::MsgType type) const;
  void commit_through(zab::Zxid zxid, std::vector<QuorumPacket>& out);
  // The packets of one entry; a reconfiguration's COMMIT and INFORM are
  // Apache's ...ANDACTIVATE, naming this leader.
  QuorumPacket proposal(const zab::Entry& e);
  QuorumPacket commit(zab::Zxid zxid);
  QuorumPacket inform(const zab::Entry& e);

  Options options_;
  zab::ServerId learner_ = 0;
  bool observer_ = false;
  Stage stage_ = Stage::kOpened;
  zab::Epoch epoch_ = 0;
  bool sync_opened_ = false;  // a TRUNC or SNAP began the sync
  // What NEWLEADER's ACK acks: the Diff's last committed entry (its start
  // when none); the entries after it go after NEWLEADER.
  zab::Zxid acked_at_new_leader_ = 0;
  std::vector<zab::Entry> after_new_leader_;
  std::deque<zab::Zxid> uncommitted_;  // PROPOSALs sent without a COMMIT, in order
  std::set<zab::Zxid> reconfigs_;      // ... of them, the reconfigurations
  zab::Zxid acked_ = 0;
  uint64_t ping_round_ = 0;  // the last core Ping's request_id
  uint64_t next_sync_ = 0;
};

}  // namespace zkd::apache
