// SPDX-License-Identifier: Apache-2.0
// The Zab core: one replica's protocol state machine, pure. It reads no clock,
// opens no socket, starts no thread and draws no random number: the host steps
// peer messages, ticks, proposals and storage completions in, takes a Ready
// out, carries it out, and calls advance(). Protocol, Ready contract and
// invariants: docs/zab.md.
//
// The parts: Election (election.h), LeaderRole (leader_role.h) and
// LearnerRole (learner_role.h) act on the ReplicaState (replica_state.h) that
// this class owns; it dispatches each input to the part of the current role.
//
// Not thread-safe: one owner calls everything. Every call returns at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "zkd/zab/config.h"
#include "zkd/zab/election.h"
#include "zkd/zab/leader_role.h"
#include "zkd/zab/learner_role.h"
#include "zkd/zab/message.h"
#include "zkd/zab/ready.h"
#include "zkd/zab/replica_state.h"
#include "zkd/zab/types.h"

namespace zkd::zab {

// What the host recovered from its disk at start.
struct Bootstrap {
  HardState hard_state;
  // The host's log: every durable entry after `base`, ascending. `base` is
  // the zxid of the snapshot the log starts after (0 for none). Pass at least
  // the entries after `applied`, plus up to commit_window before it.
  Zxid base = 0;
  std::vector<Entry> entries;
  // The state machine reflects the log up to here (base <= applied <= last).
  Zxid applied = 0;
  // Distinct for every start of this replica: a boot counter the host keeps
  // on disk, or a number from the host's seeded RNG. It numbers this run's
  // handshakes, so that a leader never takes a restarted learner's
  // FollowerInfo for a resend of the previous run's.
  uint32_t incarnation = 0;
};

class Zab final : RoleChanges {
 public:
  // Precondition: validate(config) is empty; boot is consistent. The replica
  // starts LOOKING, its first vote waiting in the first Ready.
  Zab(Config config, Bootstrap boot);
  // Its parts refer to one another: it stays where it was made.
  Zab(const Zab&) = delete;
  Zab& operator=(const Zab&) = delete;

  // --- inputs ---
  // A message from a peer (m.to == id). Stale, duplicate or unexpected
  // messages are ignored; a message that breaks the protocol (a gap in the
  // leader's proposals) sends this replica back to election. Taken by value:
  // a forwarded write's payload moves on into Ready::requests.
  void step(Message m);
  // One period of the host's timer.
  void tick();
  // Leader, serving: appends a txn with the next zxid and broadcasts it. A
  // reconfiguration (Config::membership_of) while another is pending:
  // kReconfigInProgress.
  Proposed propose(std::string payload);
  // Leader, serving: kOk if a reconfiguration to `next` may be proposed now
  // (LeaderRole::reconfigurable): kReconfigInProgress, kNewConfigNoQuorum,
  // kNotLeader, kNotServing otherwise. docs/zab.md, "Reconfiguration".
  Error reconfigurable(const Membership& next) const;
  // Leader, serving: sends every synced learner the host's tree digest
  // right after it applied `zxid`; it surfaces in their Ready::digests.
  void send_digest(Zxid zxid, uint64_t digest);
  // Learner (follower or observer), serving: sends a write to the leader
  // (surfaces there in Ready::requests). Delivery is not guaranteed: the
  // client retries.
  Error forward(std::string payload);
  // Serving replica: request_id shows up in Ready::syncs_done once this
  // replica applied everything the leader had proposed when it saw the sync,
  // or in Ready::syncs_failed if the replica loses its leader first.
  Error sync(uint64_t request_id);
  // Leader, serving: moves leadership to follower `to` (0: the most up to
  // date one) without an election timeout: proposals stop, and once `to` has
  // acked every one the leader steps down voting for it (LeaderRole::
  // transfer). kNoSuchFollower when `to` is not a follower in sync.
  Error transfer(ServerId to);
  // Leader: the follower a transfer is under way to (propose() refuses
  // meanwhile); 0 when none.
  ServerId transferring_to() const;
  // The host's link to `peer` broke (its connection closed). A follower or
  // observer whose leader that is goes back to election at once, as Apache's
  // learners do when their socket to the leader closes; a leader forgets that
  // learner at once (as Apache's LearnerHandler ends with its socket) and
  // steps down when no synced quorum is left, rather than keep answering
  // syncs and reads until syncLimit while the others elect a new leader. In
  // election
  // a voter whose link is down, and that has not been heard from since,
  // cannot send a better vote: once a quorum agrees, the replica need not
  // wait finalize_ticks for it (docs/zab.md, Election).
  void link_down(ServerId peer);
  // The host's log is durable up to zxid (every entry <= zxid it was given).
  void persisted(Zxid zxid);
  // The snapshot of Ready::install_snapshot is installed, durably. `members`:
  // the membership its state holds, made by the reconfiguration at
  // `version`, when one made it (nullopt: the one this replica started with
  // still holds).
  void snapshot_installed(Zxid zxid, std::optional<Membership> members = std::nullopt,
                          Zxid version = 0);

  // --- output ---
  bool has_ready() const;
  // Takes the pending batch. Call advance() after carrying it out, before the
  // next ready().
  Ready ready();
  // `spent`: the batch carried out, handed back (or not) so that the next
  // one is built in its vectors rather than allocating them again; its
  // contents are discarded.
  void advance(Ready spent = {});

  // --- introspection ---
  // cfg.voters / cfg.observers: the committed membership.
  const Config& config() const { return s_.cfg; }
  // The reconfiguration logged and not known committed yet, if any.
  const std::optional<NextMembership>& next_membership() const { return s_.next; }
  Status status() const;
  HardState hard_state() const { return s_.hard; }
  Zxid last_zxid() const { return s_.log.last(); }
  Zxid committed_zxid() const { return s_.committed; }
  Zxid durable_zxid() const { return s_.durable; }
  const Vote& vote() const { return election_.vote(); }
  uint64_t round() const { return election_.round(); }
  // Leader: followers (voters) that are in sync (past NewLeader); 0 otherwise.
  size_t synced_learners() const;
  // Leader: observers that are in sync (past NewLeader); 0 otherwise.
  size_t synced_observers() const;
  // Leader: learners' syncs waiting for what was proposed before them to
  // commit (Apache's pending_syncs); 0 otherwise.
  size_t pending_syncs() const;
  // Leader: learners being synced now; 0 otherwise.
  size_t syncing_learners() const;

 private:
  // RoleChanges: the replica moves between election and its roles.
  void look() override;
  void lead() override;
  void follow(ServerId leader) override;
  void left_epoch(ServerId peer) override;
  void hand_over(ServerId to) override;
  void take_nomination(const Vote& nomination) override;
  // After an input: reacts to a change of the committed membership.
  void after_membership_change();
  // look() with a first vote of its own choosing.
  void look_with(std::optional<Vote> nominee);

  ReplicaState s_;
  Election election_;
  LeaderRole leader_;
  LearnerRole learner_;
  Status last_status_;
  bool outstanding_ = false;  // a Ready is taken and not yet advance()d
};

}  // namespace zkd::zab
