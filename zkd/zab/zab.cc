// SPDX-License-Identifier: Apache-2.0
// The Zab core: construction, role changes, input dispatch and the Ready
// batch. Election: election.cc; leader: leader_role.cc; learner:
// learner_role.cc; the state they share: replica_state.cc.
#include "zkd/zab/zab.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace zkd::zab {

const char* to_string(Role role) {
  switch (role) {
    case Role::kLooking:
      return "LOOKING";
    case Role::kFollowing:
      return "FOLLOWING";
    case Role::kLeading:
      return "LEADING";
    case Role::kObserving:
      return "OBSERVING";
  }
  return "?";
}

const char* to_string(Error error) {
  switch (error) {
    case Error::kOk:
      return "ok";
    case Error::kNotLeader:
      return "not leader";
    case Error::kNotServing:
      return "not serving";
    case Error::kCounterExhausted:
      return "zxid counter exhausted";
    case Error::kNoSuchFollower:
      return "no such follower in sync";
    case Error::kReconfigInProgress:
      return "a reconfiguration is in progress";
    case Error::kNewConfigNoQuorum:
      return "no quorum of the new configuration is in sync";
  }
  return "?";
}

Zab::Zab(Config config, Bootstrap boot)
    : s_(std::move(config), boot.hard_state, boot.base, std::move(boot.entries), boot.applied),
      election_(s_, *this),
      leader_(s_, *this),
      learner_(s_, *this, boot.incarnation) {
  assert(validate(s_.cfg).empty());
  look();
}

// --- role changes ---

void Zab::look() { look_with(std::nullopt); }

void Zab::look_with(std::optional<Vote> nominee) {
  s_.fail_syncs();
  s_.role = Role::kLooking;
  s_.leader = 0;
  s_.serving = false;
  leader_.reset();
  learner_.reset();
  election_.start(nominee);
}

// The nomination's epoch is one above ours so that it beats every vote of a
// replica of our epoch, `to`'s own included (same epoch and last zxid, maybe
// a lower id); docs/zab.md, "Leadership transfer".
void Zab::hand_over(ServerId to) { look_with(Vote{to, s_.log.last(), s_.hard.current_epoch + 1}); }

void Zab::take_nomination(const Vote& nomination) { look_with(nomination); }

// A learner whose part changed between follower and observer joins again
// in its new part. A follower that stops voting (removed) or starts (added)
// keeps following: the leader counts its acks by the membership in force, as
// Apache's non-voting followers. A LOOKING replica votes anew, counting in
// the new membership.
void Zab::after_membership_change() {
  if (!s_.membership_changed) return;
  s_.membership_changed = false;
  if (s_.role == Role::kLeading) {
    leader_.on_membership_change();
  } else if (s_.role == Role::kLooking || (s_.role == Role::kObserving) != s_.observes()) {
    look();
  }
}

void Zab::lead() {
  s_.fail_syncs();
  s_.role = Role::kLeading;
  s_.leader = s_.cfg.id;
  s_.serving = false;
  leader_.start();
}

void Zab::follow(ServerId leader) {
  s_.fail_syncs();
  // A server the membership does not name follows, not voting, until a
  // reconfiguration makes it a voter (docs/zab.md, "Join, then vote").
  s_.role = s_.observes() ? Role::kObserving : Role::kFollowing;
  s_.leader = leader;
  s_.serving = false;
  learner_.start();
}

void Zab::left_epoch(ServerId peer) { leader_.forget(peer); }

Error Zab::transfer(ServerId to) {
  if (s_.role != Role::kLeading) return Error::kNotLeader;
  return leader_.transfer(to);
}

ServerId Zab::transferring_to() const {
  return s_.role == Role::kLeading ? leader_.transferring_to() : 0;
}

// --- inputs ---

void Zab::step(Message m) {
  if (m.to != s_.cfg.id || m.from == s_.cfg.id) return;
  election_.heard_from(m.from);
  if (m.type == MsgType::kVote) {
    election_.on_vote(m);
  } else if (s_.role == Role::kLeading) {
    leader_.on_message(std::move(m));
  } else if (s_.learning()) {
    learner_.on_message(m);
  }
  after_membership_change();
}

void Zab::tick() {
  if (s_.role == Role::kLooking) {
    election_.tick();
  } else if (s_.role == Role::kLeading) {
    leader_.tick();
  } else {
    learner_.tick();
  }
  after_membership_change();
}

Proposed Zab::propose(std::string payload) {
  if (s_.role != Role::kLeading) return {0, Error::kNotLeader};
  const Proposed p = leader_.propose(std::move(payload));
  after_membership_change();
  return p;
}

Error Zab::reconfigurable(const Membership& next) const {
  if (s_.role != Role::kLeading) return Error::kNotLeader;
  return leader_.reconfigurable(next);
}

void Zab::send_digest(Zxid zxid, uint64_t digest) {
  if (s_.role == Role::kLeading) leader_.send_digest(zxid, digest);
}

Error Zab::forward(std::string payload) {
  if (!s_.learning()) return Error::kNotServing;
  return learner_.forward(std::move(payload));
}

Error Zab::sync(uint64_t request_id) {
  if (s_.role == Role::kLeading && leader_.sync(request_id)) return Error::kOk;
  if (s_.learning() && learner_.sync(request_id)) return Error::kOk;
  return Error::kNotServing;
}

void Zab::link_down(ServerId peer) {
  const bool lost_leader = s_.learning() && peer == s_.leader;
  election_.link_down(peer);
  if (s_.role == Role::kLeading) leader_.link_down(peer);
  if (lost_leader) look();
}

void Zab::persisted(Zxid zxid) {
  s_.reported_durable = std::max(s_.reported_durable, zxid);
  if (s_.pending_snapshot) return;  // entries after it wait for the snapshot
  s_.durable = std::max(s_.durable, std::min(zxid, s_.log.last()));
  if (s_.role == Role::kLeading) {
    leader_.persisted();
  } else if (s_.learning()) {
    learner_.send_acks();
  }
  after_membership_change();
}

void Zab::snapshot_installed(Zxid zxid, std::optional<Membership> members, Zxid version) {
  if (s_.pending_snapshot != zxid) return;
  s_.pending_snapshot.reset();
  s_.durable = std::max(zxid, std::min(s_.reported_durable, s_.log.last()));
  if (members && (*members != Membership{s_.cfg.voters, s_.cfg.observers} ||
                  version != s_.cfg.membership_version)) {
    s_.take(std::move(*members), version);
  }
  after_membership_change();
  if (s_.learning()) learner_.send_acks();
}

// --- output ---

bool Zab::has_ready() const {
  if (!s_.out.empty() || s_.committed > s_.applied || status() != last_status_) return true;
  for (const LocalSync& s : s_.local_syncs) {
    if (s.zxid && *s.zxid <= s_.applied) return true;
  }
  return false;
}

Ready Zab::ready() {
  assert(!outstanding_);
  outstanding_ = true;
  Ready r = std::move(s_.out);
  s_.out = Ready{};
  // Committed entries, cut at the zxid of a snapshot sent in this batch so
  // that the host's state after applying them is that snapshot.
  const Zxid upto = std::min(s_.committed, s_.snapshot_cut.value_or(s_.committed));
  s_.snapshot_cut.reset();
  if (upto > s_.applied) {
    s_.log.append_range(s_.applied, upto, r.committed);
    s_.applied = upto;
  }
  std::erase_if(s_.local_syncs, [&](const LocalSync& s) {
    if (!s.zxid || *s.zxid > s_.applied) return false;
    r.syncs_done.push_back(s.request_id);
    return true;
  });
  if (const Status now = status(); now != last_status_) {
    r.status = now;
    last_status_ = now;
  }
  s_.log.trim(s_.applied, s_.cfg.commit_window);
  return r;
}

namespace {

// `spent`'s buffer, emptied, for `next` when it has none yet.
template <typename T>
void reuse(std::vector<T>& spent, std::vector<T>& next) {
  if (next.capacity() != 0 || spent.capacity() == 0) return;
  spent.clear();
  next.swap(spent);
}

}  // namespace

void Zab::advance(Ready spent) {
  assert(outstanding_);
  outstanding_ = false;
  // The batches of a write each hold an entry, a commit and a message or
  // two: reused, their vectors are not allocated anew for every write.
  reuse(spent.entries, s_.out.entries);
  reuse(spent.committed, s_.out.committed);
  reuse(spent.messages, s_.out.messages);
  reuse(spent.requests, s_.out.requests);
}

Status Zab::status() const {
  Status s{.role = s_.role, .leader = s_.leader, .serving = s_.serving};
  if (s_.role == Role::kLeading) s.epoch = leader_.epoch();
  if (s_.learning() && learner_.knows_epoch()) s.epoch = s_.hard.accepted_epoch;
  return s;
}

size_t Zab::synced_learners() const {
  return s_.role == Role::kLeading ? leader_.synced_learners() : 0;
}

size_t Zab::synced_observers() const {
  return s_.role == Role::kLeading ? leader_.synced_observers() : 0;
}

size_t Zab::syncing_learners() const {
  return s_.role == Role::kLeading ? leader_.syncing_learners() : 0;
}

size_t Zab::pending_syncs() const {
  if (s_.role != Role::kLeading) return 0;
  return static_cast<size_t>(std::count_if(s_.peer_syncs.begin(), s_.peer_syncs.end(),
                                           [&](const PeerSync& s) { return s.from != s_.cfg.id; }));
}

}  // namespace zkd::zab
