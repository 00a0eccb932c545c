// SPDX-License-Identifier: Apache-2.0
// Leader election (internal to zkd/zab), after Apache's FastLeaderElection:
// every LOOKING replica proposes the best vote it has seen in its round
// (ordered by current epoch, last zxid, server id) and broadcasts it; when a
// quorum of the round agrees with its vote it waits finalize_ticks for a
// better one, then decides (at once when every voter it has not heard in the
// round is one whose connection closed). Replicas that are FOLLOWING or
// LEADING answer LOOKING ones with their vote, so a restarted replica joins
// an established leader. Replicas that do not vote (observers, and servers
// the membership does not name: joining or removed) only ask: they vote for
// no one, are never counted, and join a leader that a quorum of voters'
// answers name (of their membership, or of the one the leader reports).
//
// It runs while the replica is LOOKING (start()) and answers votes in every
// role; a decision hands the replica to its role through RoleChanges.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "zkd/zab/message.h"
#include "zkd/zab/replica_state.h"
#include "zkd/zab/types.h"

namespace zkd::zab {

class Election {
 public:
  // `state` and `changes` outlive the election.
  Election(ReplicaState& state, RoleChanges& changes) : s_(state), changes_(changes) {}

  // The replica is LOOKING from now on: a new round with its own vote, or
  // with `nominee` (a leader's hand-over: docs/zab.md, "Leadership
  // transfer").
  void start(std::optional<Vote> nominee = std::nullopt);
  // A vote from a peer, in any role.
  void on_vote(const Message& m);
  // One period of the host's timer while LOOKING.
  void tick();
  // A message came from `peer`: its link is up.
  void heard_from(ServerId peer) { unreachable_.erase(peer); }
  // The link to `peer` broke; while LOOKING that may be the voter it waited for.
  void link_down(ServerId peer);

  const Vote& vote() const { return vote_; }
  uint64_t round() const { return round_; }

 private:
  Vote self_vote() const;
  void broadcast_vote();
  void send_vote(ServerId to);
  bool quorum_agrees(const std::map<ServerId, Vote>& votes, const Vote& v) const;
  bool quorum_names(const std::map<ServerId, Vote>& votes, ServerId leader) const;
  bool leader_members_name(const std::map<ServerId, Vote>& votes, ServerId leader) const;
  bool leader_confirmed(ServerId leader, uint64_t round) const;
  bool decide_now() const;
  void on_quorum_agrees();
  void decide(Vote v);  // by value: callers pass votes held in maps it clears

  ReplicaState& s_;
  RoleChanges& changes_;
  Vote vote_;
  bool nominated_ = false;  // vote_ is a hand-over's nomination (decided at once)
  uint64_t round_ = 0;
  std::map<ServerId, Vote> received_;  // LOOKING votes of this round, and our own
  struct OutOfElection {
    Vote vote;
    uint64_t round = 0;
    PeerState state = PeerState::kFollowing;
    // The committed membership it reported, when as recent as ours.
    std::optional<Membership> members;
  };
  std::map<ServerId, OutOfElection> out_of_election_;  // FOLLOWING / LEADING peers
  int finalize_left_ = 0;  // > 0: a quorum agrees; decide when it reaches 0
  // Voters whose link the host reported down (link_down) and that sent
  // nothing since: they cannot vote now.
  std::set<ServerId> unreachable_;
  int resend_left_ = 0;
};

}  // namespace zkd::zab
