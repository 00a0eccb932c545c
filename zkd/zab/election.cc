// SPDX-License-Identifier: Apache-2.0
#include "zkd/zab/election.h"

#include "zkd/zab/membership_note.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

// An observer's notification names no leader (0): it only asks. A server
// the membership does not name votes for itself, as Apache's non-voting
// participants do: a voter of a pending membership it has not logged yet
// (it crashed before) must take part for that membership's quorum. Only the
// replicas that count it take its vote, and it never leads (decide).
Vote Election::self_vote() const {
  return {s_.observes() ? 0 : s_.cfg.id, s_.log.last(), s_.hard.current_epoch};
}

void Election::start(std::optional<Vote> nominee) {
  ++round_;
  vote_ = nominee.value_or(self_vote());
  nominated_ = nominee.has_value();
  received_.clear();
  received_[s_.cfg.id] = vote_;
  out_of_election_.clear();
  finalize_left_ = 0;
  broadcast_vote();
  if (quorum_agrees(received_, vote_)) finalize_left_ = s_.cfg.finalize_ticks;
}

void Election::broadcast_vote() {
  for (ServerId v : s_.all_voters()) {
    if (v != s_.cfg.id) send_vote(v);
  }
  resend_left_ = s_.cfg.vote_resend_ticks;
}

void Election::send_vote(ServerId to) {
  s_.send({.type = MsgType::kVote,
           .to = to,
           .round = round_,
           .nomination = nominated_ && s_.role == Role::kLooking,
           .vote = vote_,
           .state = peer_state(s_.role),
           .payload = membership_note(s_.cfg)});
}

bool Election::quorum_agrees(const std::map<ServerId, Vote>& votes, const Vote& v) const {
  return s_.quorum_of([&](ServerId id) {
    const auto it = votes.find(id);
    return it != votes.end() && it->second == v;
  });
}

// Apache's termPredicate for peers out of election (Vote.equals skips the
// zxid and round of FOLLOWING / LEADING votes, ZOOKEEPER-1732): they agree
// when they name the same leader. A follower's vote may be a stale copy of
// its leader's (it joined on an older notification), so comparing votes whole
// could keep a LOOKING replica out forever. Safety does not rest on this:
// the leader still needs a quorum in discovery and synchronisation.
//
// A quorum of the committed membership only: a pending reconfiguration in
// our log may never have committed (the leader's sync will cut it), and its
// voters may never name the leader that is.
bool Election::quorum_names(const std::map<ServerId, Vote>& votes, ServerId leader) const {
  return s_.committed_quorum_of([&](ServerId id) {
    const auto it = votes.find(id);
    return it != votes.end() && it->second.leader == leader;
  });
}

// A server joining with a configuration file of its own may list members
// the ensemble's membership, of the same version, does not (itself, say):
// the membership the leader reported decides then. Following a leader is
// safe on any evidence: the leader still needs a quorum of its own
// membership to establish its epoch and to commit.
bool Election::leader_members_name(const std::map<ServerId, Vote>& votes, ServerId leader) const {
  const auto it = out_of_election_.find(leader);
  if (it == out_of_election_.end() || !it->second.members) return false;
  const std::vector<ServerId>& voters = it->second.members->voters;
  const auto naming = std::count_if(voters.begin(), voters.end(), [&](ServerId id) {
    const auto v = votes.find(id);
    return v != votes.end() && v->second.leader == leader;
  });
  return !voters.empty() && static_cast<size_t>(naming) >= quorum_size(voters.size());
}

// Apache's checkLeader: another replica may be followed only once it says it
// is LEADING (in its own name); we may lead only on a quorum of our own round.
bool Election::leader_confirmed(ServerId leader, uint64_t round) const {
  if (leader == s_.cfg.id) return s_.voting() && round == round_;
  auto it = out_of_election_.find(leader);
  return it != out_of_election_.end() && it->second.state == PeerState::kLeading &&
         it->second.vote.leader == leader;
}

void Election::on_vote(const Message& m) {
  // A server that missed reconfigurations (down, or cut off, meanwhile)
  // learns the membership from any vote, as Apache's servers do from
  // notifications: a committed one is safe to take (Zab::step reacts).
  std::optional<std::pair<Membership, Zxid>> note;
  if (!m.payload.empty()) note = read_membership_note(m.payload);
  if (note) {
    s_.take_later(note->first, note->second);
    // Taken: the vote is looked at again once this replica has reacted
    // (it is resent, or answered again).
    if (s_.membership_changed) return;
  }
  // Our leader, no voter any more after a reconfiguration, hands leadership
  // over: take its nomination (it is no voter to answer ours).
  if (!s_.is_voter(m.from) && s_.learning() && m.from == s_.leader && m.nomination &&
      m.state == PeerState::kLooking) {
    changes_.take_nomination(m.vote);
    return;
  }
  // A vote from a server that votes in neither membership (an observer, a
  // server joining or removed), or naming no one, asks for the leader.
  if (!s_.is_voter(m.from) || m.vote.leader == 0) {
    // Answer it, never count it; a voter still LOOKING has no leader to
    // name.
    if (s_.role == Role::kLooking || m.state != PeerState::kLooking) return;
    if (s_.role == Role::kLeading) changes_.left_epoch(m.from);  // it left our epoch
    send_vote(m.from);
    return;
  }
  if (s_.role != Role::kLooking) {
    if (m.state != PeerState::kLooking) return;
    // A peer that is LOOKING has left our epoch (Apache: its connection
    // broke). Tell it whom we follow. Our leader's votes of the round we
    // decided in are no such sign when they do not beat the vote we decided
    // on: they left before the leader decided (we may decide first: at once
    // on a hand-over's nomination) and arrive late. A vote only improves
    // within a round, and a leader that leaves starts a new one with its own
    // vote, which is never worse than the one that elected it.
    if (s_.learning() && m.from == s_.leader) {
      if (m.round == round_ && !vote_beats(m.vote, vote_)) return;
      changes_.look();
      return;
    }
    // Observers answer too, as Apache's do: the answer carries our
    // membership, which a server that missed reconfigurations needs to find
    // the voters (its own may name only servers that observe now).
    if (s_.role == Role::kLeading) changes_.left_epoch(m.from);
    send_vote(m.from);
    return;
  }

  if (m.state == PeerState::kLooking) {
    if (s_.observes()) return;  // observers take no part in rounds
    if (m.round > round_) {
      round_ = m.round;
      received_.clear();
      const bool theirs = vote_beats(m.vote, self_vote());
      vote_ = theirs ? m.vote : self_vote();
      nominated_ = theirs && m.nomination;
      finalize_left_ = 0;
      broadcast_vote();
    } else if (m.round < round_) {
      send_vote(m.from);  // bring it to our round
      return;
    } else if (vote_beats(m.vote, vote_)) {
      vote_ = m.vote;
      nominated_ = m.nomination;
      finalize_left_ = 0;
      broadcast_vote();
    } else if (m.vote != vote_) {
      // Its vote is worse than ours, so it has not seen ours (it may have
      // been FOLLOWING when our broadcast came): tell it now rather than at
      // the next resend.
      send_vote(m.from);
    }
    received_[m.from] = m.vote;
    received_[s_.cfg.id] = vote_;
    if (quorum_agrees(received_, vote_)) on_quorum_agrees();
    return;
  }

  // The sender is FOLLOWING or LEADING. A server the membership does not
  // name (joining, or removed) joins its leader too, as a follower that does
  // not vote until a reconfiguration makes it a voter (Zab::follow).
  OutOfElection& out = out_of_election_[m.from];
  out = {m.vote, m.round, m.state, std::nullopt};
  // A membership as recent as ours; older ones are a stale leader's.
  if (note && note->second >= s_.cfg.membership_version) out.members = std::move(note->first);
  if (m.round == round_ && !s_.observes()) received_[m.from] = m.vote;
  const ServerId leader = m.vote.leader;
  if (!leader_confirmed(leader, m.round)) return;
  bool agreed = !s_.observes() && m.round == round_ && quorum_names(received_, leader);
  if (!agreed) {
    std::map<ServerId, Vote> settled;
    for (const auto& [id, o] : out_of_election_) settled[id] = o.vote;
    agreed = quorum_names(settled, leader) || leader_members_name(settled, leader);
  }
  if (!agreed) return;
  round_ = std::max(round_, m.round);
  // Take the leader's own vote, not a follower's possibly stale copy of it.
  decide(leader == s_.cfg.id ? m.vote : out_of_election_.at(leader).vote);
}

// Whether to decide without the finalize wait: the wait is for a better vote
// from a voter not heard in this round, and a closed connection says that
// voter cannot send one now. So: at least one voter's link is down, and every
// voter we have not heard in this round is such a one. A voter we heard
// cannot beat our vote in this round: its vote only moves to better votes it
// hears, starting from its own, and what it sent us does not beat ours (or we
// would have taken it). With every voter heard the wait is kept, as before:
// no link went down, so nothing calls for haste.
//
// A hand-over's nomination is decided at once too: its epoch is one above the
// leader's, so no vote of a replica of that epoch can beat it, and the wait
// would only stretch the pause the transfer exists to keep short.
bool Election::decide_now() const {
  if (nominated_) return true;
  bool closed = false;
  for (ServerId v : s_.all_voters()) {
    if (v == s_.cfg.id || received_.contains(v)) continue;
    if (!unreachable_.contains(v)) return false;
    closed = true;
  }
  return closed;
}

// A quorum of our round agrees with our vote: decide now (decide_now), else
// wait finalize_ticks for a better vote (Apache's finalizeWait), unless
// already waiting.
void Election::on_quorum_agrees() {
  if (decide_now()) {
    decide(vote_);
    return;
  }
  if (finalize_left_ == 0) finalize_left_ = s_.cfg.finalize_ticks;
}

void Election::decide(Vote v) {
  // A server the membership does not name never leads: it waits for a vote
  // that names a voter (a better one, or the next round's).
  if (v.leader == s_.cfg.id && !s_.voting()) return;
  vote_ = v;
  finalize_left_ = 0;
  received_.clear();
  out_of_election_.clear();
  if (v.leader == s_.cfg.id) {
    changes_.lead();
  } else {
    changes_.follow(v.leader);
  }
}

void Election::tick() {
  if (finalize_left_ > 0 && --finalize_left_ == 0) {
    if (quorum_agrees(received_, vote_)) {
      decide(vote_);
      return;
    }
  }
  if (--resend_left_ <= 0) broadcast_vote();
}

void Election::link_down(ServerId peer) {
  if (s_.is_voter(peer)) unreachable_.insert(peer);
  if (s_.role == Role::kLooking && finalize_left_ > 0 && quorum_agrees(received_, vote_)) {
    on_quorum_agrees();  // it may have been the voter we waited for
  }
}

}  // namespace zkd::zab
