// SPDX-License-Identifier: Apache-2.0
// The leader (internal to zkd/zab): discovery (choose a new epoch from a
// quorum's accepted epochs), synchronisation (DIFF / TRUNC / SNAP then
// NEWLEADER per learner; the epoch is established once a quorum acked
// NEWLEADER) and broadcast (PROPOSAL, ACK, COMMIT, pipelined; commit in zxid
// order on a quorum of durable acks). Observers are synced the same way but
// never counted; in broadcast they get committed entries by INFORM instead of
// PROPOSAL and COMMIT. docs/zab.md has the protocol.
//
// It acts on the ReplicaState while the replica leads (start() to reset());
// it steps down through RoleChanges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "zkd/zab/message.h"
#include "zkd/zab/ready.h"
#include "zkd/zab/replica_state.h"
#include "zkd/zab/types.h"

namespace zkd::zab {

class LeaderRole {
 public:
  // `state` and `changes` outlive the role.
  LeaderRole(ReplicaState& state, RoleChanges& changes) : s_(state), changes_(changes) {}

  // The replica leads from now on: discovery of a new epoch.
  void start();
  // The replica does not lead (any more): forgets the epoch and the learners.
  void reset();
  // A peer's message (not a vote) while leading.
  void on_message(Message m);
  void tick();
  // The host's log became more durable: establishes or commits what it can.
  void persisted();
  // `peer` left this epoch (it asks for a leader).
  void forget(ServerId peer) { peers_.erase(peer); }
  // The host reported the link to `peer` down: the learner is gone at once
  // (as Apache's LearnerHandler ends with its socket), not after syncLimit
  // silent ticks, and a leader left without a synced quorum steps down now,
  // before the followers it lost elect another leader and that one commits:
  // until then it would still answer syncs and reads.
  void link_down(ServerId peer);

  // Broadcast: the next txn of the epoch, sent to every synced follower.
  // A reconfiguration (Config::membership_of) is refused while another is
  // not committed yet.
  Proposed propose(std::string payload);
  // Broadcast: whether a reconfiguration to `next` may be proposed now: none
  // is pending, and a majority of next's voters is in sync with us (we count
  // when we are one of them), as Apache's leader checks before it proposes.
  Error reconfigurable(const Membership& next) const;
  // The committed membership changed: learners no longer members are
  // dropped; if we are no voter any more, leadership goes to a voter of it.
  void on_membership_change();
  // Broadcast: the host's tree digest after `zxid`, to every synced learner.
  void send_digest(Zxid zxid, uint64_t digest);
  // Broadcast: this replica's sync, done once it applied what is proposed now.
  bool sync(uint64_t request_id);
  // Broadcast: hands leadership to the follower `to` (0: the synced follower
  // with the most acked, the lowest id on a tie) once it has acked every
  // proposal, by stepping down with a vote for it (docs/zab.md,
  // "Leadership transfer"). propose() refuses meanwhile; the transfer is
  // abandoned when that takes sync_limit ticks.
  Error transfer(ServerId to);
  // The follower a transfer is under way to; 0 when none.
  ServerId transferring_to() const { return transfer_to_; }

  // The epoch being established or led; 0 before it is chosen.
  Epoch epoch() const { return new_epoch_; }
  bool broadcasting() const { return phase_ == Phase::kBroadcast; }
  // Followers that vote / observers that are in sync (past NewLeader).
  size_t synced_learners() const { return count_voters(Peer::Stage::kSynced); }
  size_t synced_observers() const;
  // Learners (voters and observers) being synced now (past their epoch ack,
  // before NewLeader's ack).
  size_t syncing_learners() const;

 private:
  enum class Phase : uint8_t { kDiscovery, kSync, kBroadcast };
  // The leader's view of one learner (Apache's LearnerHandler).
  struct Peer {
    enum class Stage : uint8_t { kGotInfo, kAwaitAckEpoch, kAckedEpoch, kSyncing, kSynced };
    Stage stage = Stage::kGotInfo;
    uint64_t attempt = 0;
    Epoch accepted_epoch = 0;
    Epoch current_epoch = 0;
    Zxid last_zxid = 0;
    Zxid floor = 0;      // it cannot truncate below this (its log base)
    bool fresh = false;  // its AckEpoch counts toward the discovery quorum
    Zxid acked = 0;      // durable on the learner, from AckNewLeader / Ack
    Zxid informed = 0;   // observer: its log ends here once it has all we sent
    // It joined as an observer (Informs, no acks); else as a follower
    // (Proposals, Commits, acks), whose acks count while it is a voter.
    bool observer = false;
    int silent_ticks = 0;
    int handshake_ticks = 0;
    bool snap_due = false;   // acked the epoch in broadcast; its Snap leaves at the next tick
    uint64_t confirmed = 0;  // the latest confirmation round it answered
  };

  void on_follower_info(const Message& m);
  void send_leader_info(ServerId id, Peer& p);
  size_t count_voters(Peer::Stage at_least) const;
  // Whether the voters whose peer `peer_counts` (and this leader, if
  // `self_counts`) are a quorum of every membership in force.
  bool quorum_where(const std::function<bool(const Peer&)>& peer_counts, bool self_counts) const;
  static std::function<bool(const Peer&)> at_least(Peer::Stage stage) {
    return [stage](const Peer& p) { return p.stage >= stage; };
  }
  void maybe_choose_epoch();
  void on_ack_epoch(ServerId id, Peer& p, const Message& m);
  void maybe_finish_discovery();
  // Where a learner's Diff starts: its last zxid, or an earlier zxid of ours
  // it truncates to first; nothing when only a Snap brings it up to date.
  std::optional<Zxid> sync_point(ServerId id, const Peer& p) const;
  // What a learner is synced up to (see sync_peer).
  Zxid sync_end(const Peer& p) const;
  void sync_peer(ServerId id, Peer& p);
  // A Ping to every learner; busy while a learner's Snap is due.
  void ping_learners();
  // With quorum_sync: a new confirmation round, pinged to every learner at
  // once; its number (0 without quorum_sync: nothing to confirm).
  uint64_t confirmation_round();
  // Whether a quorum of voters (this leader included) answered `round`.
  bool confirmed(uint64_t round) const;
  void on_ack_new_leader(Peer& p, const Message& m);
  void send_up_to_date(ServerId id);
  void maybe_establish();
  void maybe_commit();
  void inform_observers();
  void answer_peer_syncs();
  // Hands over when the transfer's follower has acked every proposal.
  void maybe_hand_over();
  // No voter any more: a transfer to the best synced voter, or, with none,
  // back to election. True when the transfer is under way.
  bool hand_over_or_step_down();

  ReplicaState& s_;
  RoleChanges& changes_;
  Phase phase_ = Phase::kDiscovery;
  Epoch new_epoch_ = 0;  // 0 until chosen
  // The largest acceptedEpoch a voter showed above an epoch we had chosen
  // (we stepped down for it): an epoch we choose later exceeds it, even when
  // that voter's FollowerInfo comes after a quorum's again.
  Epoch epoch_floor_ = 0;
  int phase_ticks_ = 0;
  Zxid initial_last_ = 0;  // the leader's history for the new epoch ends here
  uint64_t next_counter_ = 1;
  uint64_t round_ = 0;  // the latest confirmation round (quorum_sync)
  ServerId transfer_to_ = 0;
  int transfer_ticks_ = 0;
  std::map<ServerId, Peer> peers_;
};

}  // namespace zkd::zab
