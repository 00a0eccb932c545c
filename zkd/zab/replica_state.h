// SPDX-License-Identifier: Apache-2.0
// What every part of the Zab core reads and writes (internal to zkd/zab):
// the replica's configuration, hard state, log and the points along it
// (durable, committed, applied), its role and leader, the syncs waiting,
// and the Ready being filled. The roles (election.h, leader_role.h,
// learner_role.h) change it; the Zab class (zab.h) owns it and hands it out.
//
// Invariants: base <= applied <= committed <= log.last(); durable <=
// log.last(); out holds only what happened since the last Zab::ready().
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "zkd/zab/config.h"
#include "zkd/zab/memory_log.h"
#include "zkd/zab/message.h"
#include "zkd/zab/ready.h"
#include "zkd/zab/types.h"

namespace zkd::zab {

// A sync the leader answers once committed reaches zxid and, with
// Config::quorum_sync, a quorum confirmed `round`: a learner's, or (from =
// the leader's id) the leader's own, then done once applied reaches zxid.
struct PeerSync {
  ServerId from = 0;
  uint64_t request_id = 0;
  Zxid zxid = 0;
  uint64_t round = 0;  // 0: no confirmation needed
};

// This replica's own sync(): done once applied reaches zxid (unknown until
// a learner hears the leader's SyncReply).
struct LocalSync {
  uint64_t request_id = 0;
  std::optional<Zxid> zxid;
};

// A reconfiguration in the log, not yet known committed: until it is, every
// quorum is a quorum of the committed membership and of this one.
struct NextMembership {
  Zxid zxid = 0;
  Membership members;
};

struct ReplicaState {
  ReplicaState(Config config, HardState hard_state, Zxid base, std::vector<Entry> entries,
               Zxid boot_applied);

  // Queues `m` from this replica in the Ready.
  void send(Message m);
  // Takes `h` and puts it in the Ready (for the host to persist) if it changed.
  void set_hard_state(HardState h);
  // Appends to the log and to the Ready's entries; false if it does not follow.
  // An entry that changes the membership becomes `next`.
  bool append(Entry entry);
  // Drops the log after zxid, and `next` if it was there.
  void truncate_after(Zxid zxid);
  // The log restarts at a snapshot at zxid; `next` goes (the snapshot's
  // membership comes with Zab::snapshot_installed).
  void reset_to_snapshot(Zxid zxid);
  // committed moves up to zxid (never past the log's end); `next` takes
  // effect once a zxid at or past it is known committed this way.
  void advance_commit(Zxid zxid);
  // A voter of the committed membership or of `next`.
  bool is_voter(ServerId id) const;
  // An observer of either, and a voter of neither.
  bool is_observer(ServerId id) const;
  // This replica is a voter of either membership: it votes and may lead. A
  // replica that is not (an observer, or a server the membership does not
  // name: a joining one, or a removed one) never votes and never leads.
  bool voting() const { return is_voter(cfg.id); }
  // This replica is an observer (of either membership, voter of neither):
  // it takes no part in election rounds and learns by Inform.
  bool observes() const { return is_observer(cfg.id); }
  // Following or observing: a learner of `leader`.
  bool learning() const { return role == Role::kFollowing || role == Role::kObserving; }
  // Whether the voters `has` holds (this replica's own id included) are a
  // majority of the committed membership and, while one is pending, of
  // `next`: what every quorum of the protocol needs (Apache's
  // SyncedLearnerTracker.hasAllQuorums).
  bool quorum_of(const std::function<bool(ServerId)>& has) const;
  // Whether they are a majority of the committed membership (alone).
  bool committed_quorum_of(const std::function<bool(ServerId)>& has) const;
  // The largest zxid a quorum (quorum_of) acknowledged, `acked` giving each
  // voter's (this replica's included); 0 when none.
  Zxid quorum_zxid_of(const std::function<Zxid(ServerId)>& acked) const;
  // Every voter of either membership, ascending.
  std::vector<ServerId> all_voters() const;
  // A logged entry that changes the membership becomes `next` (the one
  // before it, logged earlier, was committed: it takes effect).
  void note_membership(const Entry& entry);
  // `members`, made by the reconfiguration at `version`, is the committed
  // membership from now on.
  void take(Membership members, Zxid version);
  // A committed membership heard of (in election) that is later than ours:
  // taken, `next` with it if it is not later.
  void take_later(Membership members, Zxid version);
  // Every sync waiting fails (the replica lost its leader or its role).
  void fail_syncs();

  // cfg.voters and cfg.observers are the committed membership.
  Config cfg;
  std::optional<NextMembership> next;
  // The committed membership changed and this replica has not reacted yet
  // (Zab::after_input).
  bool membership_changed = false;
  HardState hard;
  MemoryLog log;
  Zxid durable = 0;    // the host's log is durable up to here (<= log.last())
  Zxid committed = 0;  // known committed (<= log.last())
  Zxid applied = 0;    // handed out in Ready::committed (<= committed)
  // What the host last reported durable, kept while a snapshot is installed.
  Zxid reported_durable = 0;
  // A learner's snapshot being installed: entries after it wait for it.
  std::optional<Zxid> pending_snapshot;
  Role role = Role::kLooking;
  ServerId leader = 0;
  bool serving = false;
  std::vector<LocalSync> local_syncs;
  std::vector<PeerSync> peer_syncs;

  Ready out;
  std::optional<Zxid> snapshot_cut;  // Ready::committed stops here this batch
};

// How a role hands the replica to another (implemented by Zab).
class RoleChanges {
 public:
  virtual void look() = 0;                // back to election
  virtual void lead() = 0;                // this replica won the election
  virtual void follow(ServerId) = 0;      // another replica won it
  virtual void left_epoch(ServerId) = 0;  // a peer asks for a leader: the leader drops it
  // The leader steps down to election, nominating a follower that has every
  // proposal it made (transfer).
  virtual void hand_over(ServerId to) = 0;
  // A learner whose leader left the membership takes its hand-over vote.
  virtual void take_nomination(const Vote& nomination) = 0;

 protected:
  ~RoleChanges() = default;
};

}  // namespace zkd::zab
