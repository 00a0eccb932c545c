// SPDX-License-Identifier: Apache-2.0
// Leader election, after Apache's FastLeaderElection: every LOOKING replica
// proposes the best vote it has seen in its round (ordered by current epoch,
// last zxid, server id) and broadcasts it; when a quorum of the round agrees
// with its vote it waits finalize_ticks for a better one, then decides (at
// once when every voter it has not heard in the round is one whose
// connection closed).
// Replicas that are FOLLOWING or LEADING answer LOOKING ones with their vote,
// so a restarted replica joins an established leader. Observers only ask:
// they vote for no one, are never counted, and join a leader that a quorum of
// voters' answers name.
#include <algorithm>

#include "zkd/zab/zab.h"

namespace zkd::zab {

namespace {

PeerState peer_state(Role role) {
  switch (role) {
    case Role::kLooking:
      return PeerState::kLooking;
    case Role::kFollowing:
      return PeerState::kFollowing;
    case Role::kLeading:
      return PeerState::kLeading;
    case Role::kObserving:
      // Never sent: an observer sends votes only while LOOKING.
      return PeerState::kFollowing;
  }
  return PeerState::kLooking;
}

}  // namespace

// An observer's notification names no leader (0): it only asks.
Vote Zab::self_vote() const { return {observer_ ? 0 : cfg_.id, log_.last(), hard_.current_epoch}; }

void Zab::become_looking() {
  fail_syncs();
  role_ = Role::kLooking;
  leader_ = 0;
  serving_ = false;
  peers_.clear();
  new_epoch_ = 0;
  stage_ = LearnerStage::kDiscovery;
  ack_new_leader_at_.reset();
  ++round_;
  vote_ = self_vote();
  received_.clear();
  received_[cfg_.id] = vote_;
  out_of_election_.clear();
  finalize_left_ = 0;
  broadcast_vote();
  if (quorum_agrees(received_, vote_)) finalize_left_ = cfg_.finalize_ticks;
}

void Zab::broadcast_vote() {
  for (ServerId v : cfg_.voters) {
    if (v != cfg_.id) send_vote(v);
  }
  resend_left_ = cfg_.vote_resend_ticks;
}

void Zab::send_vote(ServerId to) {
  send({.type = MsgType::kVote,
        .to = to,
        .round = round_,
        .vote = vote_,
        .state = peer_state(role_)});
}

bool Zab::quorum_agrees(const std::map<ServerId, Vote>& votes, const Vote& v) const {
  const auto n = std::count_if(votes.begin(), votes.end(), [&](const auto& kv) {
    return kv.second == v && is_voter(kv.first);
  });
  return static_cast<size_t>(n) >= quorum();
}

// Apache's termPredicate for peers out of election (Vote.equals skips the
// zxid and round of FOLLOWING / LEADING votes, ZOOKEEPER-1732): they agree
// when they name the same leader. A follower's vote may be a stale copy of
// its leader's (it joined on an older notification), so comparing votes whole
// could keep a LOOKING replica out forever. Safety does not rest on this:
// the leader still needs a quorum in discovery and synchronisation.
bool Zab::quorum_names(const std::map<ServerId, Vote>& votes, ServerId leader) const {
  const auto n = std::count_if(votes.begin(), votes.end(), [&](const auto& kv) {
    return kv.second.leader == leader && is_voter(kv.first);
  });
  return static_cast<size_t>(n) >= quorum();
}

// Apache's checkLeader: another replica may be followed only once it says it
// is LEADING (in its own name); we may lead only on a quorum of our own round.
bool Zab::leader_confirmed(ServerId leader, uint64_t round) const {
  if (leader == cfg_.id) return !observer_ && round == round_;
  auto it = out_of_election_.find(leader);
  return it != out_of_election_.end() && it->second.state == PeerState::kLeading &&
         it->second.vote.leader == leader;
}

void Zab::on_vote(const Message& m) {
  if (is_observer(m.from)) {
    // An observer asks for the leader. Answer it, never count it; a voter
    // still LOOKING has no leader to name, and observers do not ask observers.
    if (observer_ || role_ == Role::kLooking || m.state != PeerState::kLooking) return;
    if (role_ == Role::kLeading) peers_.erase(m.from);  // it left our epoch
    send_vote(m.from);
    return;
  }
  if (!is_voter(m.from)) return;
  if (role_ != Role::kLooking) {
    if (m.state != PeerState::kLooking) return;
    // A peer that is LOOKING has left our epoch (Apache: its connection
    // broke). Tell it whom we follow. Our leader's vote of the round we
    // decided in, for the leader we chose, is no such sign: it left before
    // the leader decided (we may decide first) and arrives late.
    if (learning() && m.from == leader_) {
      if (m.round == round_ && m.vote == vote_) return;
      become_looking();
      return;
    }
    if (observer_) return;  // voters never count an observer's answer
    if (role_ == Role::kLeading) peers_.erase(m.from);
    send_vote(m.from);
    return;
  }

  if (m.state == PeerState::kLooking) {
    if (observer_) return;  // observers take no part in rounds
    if (m.round > round_) {
      round_ = m.round;
      received_.clear();
      vote_ = vote_beats(m.vote, self_vote()) ? m.vote : self_vote();
      finalize_left_ = 0;
      broadcast_vote();
    } else if (m.round < round_) {
      send_vote(m.from);  // bring it to our round
      return;
    } else if (vote_beats(m.vote, vote_)) {
      vote_ = m.vote;
      finalize_left_ = 0;
      broadcast_vote();
    } else if (m.vote != vote_) {
      // Its vote is worse than ours, so it has not seen ours (it may have
      // been FOLLOWING when our broadcast came): tell it now rather than at
      // the next resend.
      send_vote(m.from);
    }
    received_[m.from] = m.vote;
    received_[cfg_.id] = vote_;
    if (quorum_agrees(received_, vote_)) on_quorum_agrees();
    return;
  }

  // The sender is FOLLOWING or LEADING.
  out_of_election_[m.from] = {m.vote, m.round, m.state};
  if (m.round == round_ && !observer_) received_[m.from] = m.vote;
  const ServerId leader = m.vote.leader;
  if (!leader_confirmed(leader, m.round)) return;
  bool agreed = !observer_ && m.round == round_ && quorum_names(received_, leader);
  if (!agreed) {
    std::map<ServerId, Vote> settled;
    for (const auto& [id, o] : out_of_election_) settled[id] = o.vote;
    agreed = quorum_names(settled, leader);
  }
  if (!agreed) return;
  round_ = std::max(round_, m.round);
  // Take the leader's own vote, not a follower's possibly stale copy of it.
  decide(leader == cfg_.id ? m.vote : out_of_election_.at(leader).vote);
}

// Whether to decide without the finalize wait: the wait is for a better vote
// from a voter not heard in this round, and a closed connection says that
// voter cannot send one now. So: at least one voter's link is down, and every
// voter we have not heard in this round is such a one. A voter we heard
// cannot beat our vote in this round: its vote only moves to better votes it
// hears, starting from its own, and what it sent us does not beat ours (or we
// would have taken it). With every voter heard the wait is kept, as before:
// no link went down, so nothing calls for haste.
bool Zab::decide_now() const {
  bool closed = false;
  for (ServerId v : cfg_.voters) {
    if (v == cfg_.id || received_.contains(v)) continue;
    if (!unreachable_.contains(v)) return false;
    closed = true;
  }
  return closed;
}

// A quorum of our round agrees with our vote: decide now (decide_now), else
// wait finalize_ticks for a better vote (Apache's finalizeWait), unless
// already waiting.
void Zab::on_quorum_agrees() {
  if (decide_now()) {
    decide(vote_);
    return;
  }
  if (finalize_left_ == 0) finalize_left_ = cfg_.finalize_ticks;
}

void Zab::decide(Vote v) {
  vote_ = v;
  finalize_left_ = 0;
  received_.clear();
  out_of_election_.clear();
  if (v.leader == cfg_.id) {
    become_leader();
  } else {
    become_follower(v.leader);
  }
}

void Zab::tick_looking() {
  if (finalize_left_ > 0 && --finalize_left_ == 0) {
    if (quorum_agrees(received_, vote_)) {
      decide(vote_);
      return;
    }
  }
  if (--resend_left_ <= 0) broadcast_vote();
}

}  // namespace zkd::zab
