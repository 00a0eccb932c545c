// SPDX-License-Identifier: Apache-2.0
#include "zkd/zab/leader_role.h"

#include "zkd/zab/membership_note.h"

#include <algorithm>
#include <utility>

namespace zkd::zab {

void LeaderRole::start() {
  phase_ = Phase::kDiscovery;
  new_epoch_ = 0;
  phase_ticks_ = 0;
  initial_last_ = s_.log.last();
  peers_.clear();
  transfer_to_ = 0;
  maybe_choose_epoch();  // a single-voter ensemble needs no one else
}

void LeaderRole::reset() {
  peers_.clear();
  new_epoch_ = 0;
  transfer_to_ = 0;
}

void LeaderRole::persisted() {
  maybe_establish();
  maybe_commit();
}

Proposed LeaderRole::propose(std::string payload) {
  if (phase_ != Phase::kBroadcast || transfer_to_ != 0) return {0, Error::kNotServing};
  Entry e{0, std::move(payload)};
  if (s_.next && s_.cfg.membership_of && s_.cfg.membership_of(e)) {
    return {0, Error::kReconfigInProgress};
  }
  if (next_counter_ > s_.cfg.max_counter) {
    // A new epoch is the only way to get new zxids: step down, re-elect.
    changes_.look();
    return {0, Error::kCounterExhausted};
  }
  e.zxid = make_zxid(new_epoch_, static_cast<uint32_t>(next_counter_++));
  const Zxid zxid = e.zxid;
  s_.append(e);
  for (auto& [id, p] : peers_) {
    // Observers get the entry in an Inform once it is committed; followers
    // that do not vote get it too, so that they are in sync when a
    // reconfiguration makes them voters.
    if (p.stage < Peer::Stage::kSyncing || p.observer) continue;
    Message m{.type = MsgType::kProposal, .to = id, .epoch = new_epoch_};
    m.entries.push_back(e);
    s_.send(std::move(m));
  }
  maybe_commit();  // a single-voter ensemble commits on its own durability
  return {zxid, Error::kOk};
}

Error LeaderRole::reconfigurable(const Membership& next) const {
  if (phase_ != Phase::kBroadcast || transfer_to_ != 0) return Error::kNotServing;
  if (s_.next) return Error::kReconfigInProgress;
  // Followers that ack, voting now or not (a joining server synced as a
  // non-voting follower counts: Apache's isQuorumSynced). An observer
  // (being made a voter) acks nothing until it rejoins as a follower, so it
  // cannot help commit this change (Apache's "changing an observer into a
  // follower" caveat).
  const auto synced = std::count_if(next.voters.begin(), next.voters.end(), [&](ServerId id) {
    if (id == s_.cfg.id) return true;
    const auto it = peers_.find(id);
    return it != peers_.end() && it->second.stage == Peer::Stage::kSynced && !it->second.observer;
  });
  if (static_cast<size_t>(synced) < quorum_size(next.voters.size())) {
    return Error::kNewConfigNoQuorum;
  }
  return Error::kOk;
}

// Learners the membership no longer names stay: they follow on, not voting
// (Apache's non-voting followers), or rejoin as followers if they observed.
// A follower made an observer (the change committed as this leader
// established its epoch, or by maybe_commit) rejoins as one: it is sent no
// more Proposals meanwhile.
void LeaderRole::on_membership_change() {
  for (auto& [id, p] : peers_) {
    if (p.observer || !s_.is_observer(id)) continue;
    p.observer = true;
    p.informed = s_.committed;
  }
  if (s_.voting()) {
    maybe_commit();  // a smaller quorum may commit more at once
    return;
  }
  // Removed, or made an observer: a voter of the new membership leads. The
  // host holds writes meanwhile, as for any transfer.
  if (phase_ != Phase::kBroadcast) {
    changes_.look();
    return;
  }
  transfer_to_ = 0;
  hand_over_or_step_down();
}

bool LeaderRole::hand_over_or_step_down() {
  if (transfer(0) == Error::kOk) return true;
  changes_.look();
  return false;
}

void LeaderRole::send_digest(Zxid zxid, uint64_t digest) {
  if (phase_ != Phase::kBroadcast) return;
  for (auto& [id, p] : peers_) {
    if (p.stage != Peer::Stage::kSynced) continue;
    s_.send(
        {.type = MsgType::kDigest, .to = id, .epoch = new_epoch_, .zxid = zxid, .digest = digest});
  }
}

bool LeaderRole::sync(uint64_t request_id) {
  if (phase_ != Phase::kBroadcast) return false;
  if (!s_.cfg.quorum_sync) {
    s_.local_syncs.push_back({request_id, s_.log.last()});
    return true;
  }
  // Done once applied reaches a zxid known when the quorum confirmed us.
  s_.local_syncs.push_back({request_id, std::nullopt});
  s_.peer_syncs.push_back({s_.cfg.id, request_id, s_.log.last(), confirmation_round()});
  answer_peer_syncs();
  return true;
}

uint64_t LeaderRole::confirmation_round() {
  if (!s_.cfg.quorum_sync) return 0;
  ++round_;
  ping_learners();
  return round_;
}

bool LeaderRole::confirmed(uint64_t round) const {
  if (round == 0) return true;
  return quorum_where(
      [&](const Peer& p) { return p.stage == Peer::Stage::kSynced && p.confirmed >= round; }, true);
}

bool LeaderRole::quorum_where(const std::function<bool(const Peer&)>& peer_counts,
                              bool self_counts) const {
  return s_.quorum_of([&](ServerId id) {
    if (id == s_.cfg.id) return self_counts;
    const auto it = peers_.find(id);
    return it != peers_.end() && peer_counts(it->second);
  });
}

size_t LeaderRole::synced_observers() const {
  return static_cast<size_t>(std::count_if(peers_.begin(), peers_.end(), [](const auto& p) {
    return p.second.stage == Peer::Stage::kSynced && p.second.observer;
  }));
}

size_t LeaderRole::syncing_learners() const {
  return static_cast<size_t>(std::count_if(peers_.begin(), peers_.end(), [](const auto& p) {
    return p.second.stage == Peer::Stage::kSyncing;
  }));
}

size_t LeaderRole::count_voters(Peer::Stage at_least) const {
  size_t n = 0;
  for (const auto& [id, p] : peers_) {
    if (p.stage >= at_least && !p.observer && s_.is_voter(id)) ++n;
  }
  return n;
}

void LeaderRole::on_message(Message m) {
  if (m.type == MsgType::kFollowerInfo) {
    on_follower_info(m);
    return;
  }
  auto it = peers_.find(m.from);
  if (it == peers_.end()) return;
  Peer& p = it->second;
  p.silent_ticks = 0;
  const bool this_epoch = new_epoch_ != 0 && m.epoch == new_epoch_;
  switch (m.type) {
    case MsgType::kAckEpoch:
      if (this_epoch && m.attempt == p.attempt && p.stage == Peer::Stage::kAwaitAckEpoch) {
        on_ack_epoch(m.from, p, m);
      }
      return;
    case MsgType::kAckNewLeader:
      if (this_epoch && m.attempt == p.attempt && p.stage == Peer::Stage::kSyncing) {
        on_ack_new_leader(p, m);
      }
      return;
    case MsgType::kAck:
    case MsgType::kPing:  // carries the learner's last Ack again, and our round
      // A follower's acks are kept whether it votes or not: the quorum
      // counts voters' only (ReplicaState::quorum_zxid_of).
      if (this_epoch && p.stage == Peer::Stage::kSynced && !p.observer) {
        p.acked = std::max(p.acked, std::min(m.zxid, s_.log.last()));
        if (m.type == MsgType::kPing && m.request_id > p.confirmed) {
          p.confirmed = std::min(m.request_id, round_);
          answer_peer_syncs();
        }
        maybe_commit();
        maybe_hand_over();
      }
      return;
    case MsgType::kRequest:
      if (phase_ == Phase::kBroadcast && p.stage == Peer::Stage::kSynced) {
        s_.out.requests.push_back({m.from, std::move(m.payload)});
      }
      return;
    case MsgType::kSync:
      if (phase_ == Phase::kBroadcast && p.stage == Peer::Stage::kSynced) {
        // Ordered behind every proposal made so far.
        s_.peer_syncs.push_back({m.from, m.request_id, s_.log.last(), confirmation_round()});
        answer_peer_syncs();
      }
      return;
    default:
      return;  // not for a leader
  }
}

// Any server may join: one the membership does not name follows without a
// vote (join, then vote; docs/zab.md) or observes, as it says.
void LeaderRole::on_follower_info(const Message& m) {
  auto it = peers_.find(m.from);
  if (it != peers_.end() && it->second.attempt == m.attempt) {
    it->second.silent_ticks = 0;  // a resent FollowerInfo
    return;
  }
  if (new_epoch_ != 0 && m.epoch > new_epoch_) {
    // The learner already took a later epoch from a failed prospective
    // leader and would refuse ours, rejoin, refuse again. A voter makes us
    // step down: the next election chooses an epoch above it. An observer
    // does not count: it is left out (it times out and retries) until then.
    if (s_.is_voter(m.from)) {
      epoch_floor_ = std::max(epoch_floor_, m.epoch);
      changes_.look();
    } else {
      peers_.erase(m.from);
    }
    return;
  }
  Peer& p = peers_[m.from];
  // Our membership decides a member's part (one that missed a change
  // learns it in its sync, and rejoins); the learner's word, one it does
  // not name.
  const bool observer = s_.is_voter(m.from) ? false : s_.is_observer(m.from) ? true : m.observing;
  p = Peer{.stage = Peer::Stage::kGotInfo,
           .attempt = m.attempt,
           .accepted_epoch = m.epoch,
           .observer = observer};
  if (new_epoch_ != 0) {
    send_leader_info(m.from, p);
  } else {
    maybe_choose_epoch();
  }
}

void LeaderRole::send_leader_info(ServerId id, Peer& p) {
  s_.send({.type = MsgType::kLeaderInfo, .to = id, .epoch = new_epoch_, .attempt = p.attempt});
  p.stage = Peer::Stage::kAwaitAckEpoch;
}

// Only voters' accepted epochs count: observers take no part in establishing
// epochs. An observer that accepted a later one would refuse ours: left out.
void LeaderRole::maybe_choose_epoch() {
  if (new_epoch_ != 0 || !quorum_where(at_least(Peer::Stage::kGotInfo), true)) return;
  Epoch e = std::max(s_.hard.accepted_epoch, epoch_floor_);
  for (const auto& [id, p] : peers_) {
    if (s_.is_voter(id)) e = std::max(e, p.accepted_epoch);
  }
  if (e >= kMaxEpoch) return;  // out of epochs: stay here until init_limit
  new_epoch_ = e + 1;
  s_.set_hard_state({.accepted_epoch = new_epoch_, .current_epoch = s_.hard.current_epoch});
  std::erase_if(peers_, [&](const auto& kv) {
    return !s_.is_voter(kv.first) && kv.second.accepted_epoch > new_epoch_;
  });
  for (auto& [id, p] : peers_) send_leader_info(id, p);
  maybe_finish_discovery();
}

void LeaderRole::on_ack_epoch(ServerId id, Peer& p, const Message& m) {
  p.current_epoch = m.current_epoch;
  p.last_zxid = m.zxid;
  p.floor = m.committed;
  p.fresh = m.fresh;
  if (phase_ != Phase::kDiscovery) {
    if (phase_ == Phase::kBroadcast && s_.cfg.busy_limit > s_.cfg.sync_limit &&
        !sync_point(id, p)) {
      // The host builds the Snap's state on its thread and is silent
      // meanwhile: the synced learners hear first that we will be busy.
      p.stage = Peer::Stage::kAckedEpoch;
      p.snap_due = true;
      ping_learners();
      return;
    }
    sync_peer(id, p);
    return;
  }
  // A quorum member with a more recent history than ours: we must not lead
  // (Apache's waitForEpochAck). An observer's history never decides this: it
  // holds no committed entry we lack (docs/zab.md, Discovery); sync
  // truncates what else it has.
  if (s_.is_voter(id) &&
      (p.current_epoch > s_.hard.current_epoch ||
       (p.current_epoch == s_.hard.current_epoch && p.last_zxid > s_.log.last()))) {
    changes_.look();
    return;
  }
  p.stage = Peer::Stage::kAckedEpoch;
  maybe_finish_discovery();
}

void LeaderRole::maybe_finish_discovery() {
  if (phase_ != Phase::kDiscovery || new_epoch_ == 0) return;
  // We took new_epoch_ ourselves when choosing it.
  if (!quorum_where([](const Peer& p) { return p.stage == Peer::Stage::kAckedEpoch && p.fresh; },
                    true)) {
    return;
  }
  phase_ = Phase::kSync;
  for (auto& [id, p] : peers_) {
    if (p.stage == Peer::Stage::kAckedEpoch) sync_peer(id, p);
  }
  maybe_establish();
}

// Brings one learner from its last zxid to our history: Diff when its last
// zxid is in our log, Trunc then Diff when it has entries we do not (only
// within one epoch, where logs are prefixes of one sequence, and not below
// the learner's log base, which it cannot truncate under), Snap then Diff
// otherwise. Then NewLeader; from now on a follower gets every proposal.
// An observer is brought only to what it may apply once told UpToDate: our
// whole history while the epoch is being established (all of it is committed
// at establishment), the committed prefix later; Informs carry the rest.
Zxid LeaderRole::sync_end(const Peer& p) const {
  return !p.observer || phase_ != Phase::kBroadcast ? s_.log.last() : s_.committed;
}

std::optional<Zxid> LeaderRole::sync_point(ServerId id, const Peer& p) const {
  const Zxid peer_last = p.last_zxid;
  const Zxid upto = sync_end(p);
  // A follower that does not vote and logged past what is committed may
  // have applied that tail (a host replays its log at start), and no ack of
  // it counted: it truncates to what is committed, where its log meets ours
  // (it holds peer_last), and takes the rest again.
  if (phase_ == Phase::kBroadcast && !p.observer && !s_.is_voter(id) &&
      s_.log.contains(peer_last) && peer_last > s_.committed && s_.committed >= p.floor &&
      s_.log.contains(s_.committed)) {
    return s_.committed;
  }
  if (s_.log.contains(peer_last) && peer_last <= upto) return peer_last;
  // Below the learner's log base (a snapshot it installed holds entries of
  // ours it must lose) only a Snap replaces what it has.
  const auto t = s_.log.before(peer_last);
  if (t && epoch_of(*t) == epoch_of(peer_last) && *t <= upto && *t >= p.floor) return *t;
  return std::nullopt;
}

void LeaderRole::sync_peer(ServerId id, Peer& p) {
  const Zxid upto = sync_end(p);
  Zxid from = 0;
  if (const auto point = sync_point(id, p)) {
    from = *point;
    if (from != p.last_zxid) {
      s_.send({.type = MsgType::kTrunc, .to = id, .epoch = new_epoch_, .zxid = from});
    }
  } else {
    // The host's state after applying this batch's committed entries.
    from = s_.snapshot_cut.value_or(s_.committed);
    s_.snapshot_cut = from;
    s_.send({.type = MsgType::kSnap, .to = id, .epoch = new_epoch_, .zxid = from});
  }
  Message diff{.type = MsgType::kDiff, .to = id, .epoch = new_epoch_, .zxid = from};
  diff.entries = s_.log.range(from, upto);
  // Before establishment the whole initial history is to be committed; an
  // observer is synced only to what is committed.
  diff.committed = phase_ == Phase::kBroadcast ? std::min(s_.committed, upto) : upto;
  s_.send(std::move(diff));
  s_.send({.type = MsgType::kNewLeader, .to = id, .epoch = new_epoch_, .zxid = upto});
  p.stage = Peer::Stage::kSyncing;
  p.acked = 0;
  p.informed = upto;
}

void LeaderRole::on_ack_new_leader(Peer& p, const Message& m) {
  p.stage = Peer::Stage::kSynced;
  p.acked = std::min(m.zxid, s_.log.last());
  if (phase_ != Phase::kBroadcast) {
    maybe_establish();
    return;
  }
  send_up_to_date(m.from);
  maybe_commit();
}

// With our committed membership: a learner takes it when later than its own
// (a joiner's file, or version 0 before the bump below).
void LeaderRole::send_up_to_date(ServerId id) {
  s_.send({.type = MsgType::kUpToDate,
           .to = id,
           .epoch = new_epoch_,
           .zxid = s_.committed,
           .payload = membership_note(s_.cfg)});
}

// The epoch is established once a quorum acked NewLeader (we count once our
// history is durable): our whole initial history is committed.
void LeaderRole::maybe_establish() {
  if (s_.role != Role::kLeading || phase_ != Phase::kSync) return;
  // Like a learner, we take the epoch (currentEpoch) only once our history
  // is durable, and only then count ourselves.
  if (s_.durable >= initial_last_ && s_.hard.current_epoch != new_epoch_) {
    s_.set_hard_state({.accepted_epoch = s_.hard.accepted_epoch, .current_epoch = new_epoch_});
  }
  if (!quorum_where(at_least(Peer::Stage::kSynced), s_.hard.current_epoch == new_epoch_)) return;
  phase_ = Phase::kBroadcast;
  s_.serving = true;
  next_counter_ = 1;
  s_.advance_commit(initial_last_);
  // A membership of version 0 (the configuration files') takes the zxid the
  // epoch starts at as its version, as Apache's first leader gives it
  // (ZOOKEEPER-1783): established, it beats a joining server's file.
  if (s_.cfg.membership_version == 0) s_.cfg.membership_version = make_zxid(new_epoch_, 0);
  inform_observers();
  for (auto& [id, p] : peers_) {
    if (p.stage == Peer::Stage::kSynced) send_up_to_date(id);
  }
  maybe_commit();
}

void LeaderRole::maybe_commit() {
  if (s_.role != Role::kLeading || phase_ != Phase::kBroadcast) return;
  const Zxid z = s_.quorum_zxid_of([&](ServerId id) -> Zxid {
    if (id == s_.cfg.id) return s_.durable;
    const auto it = peers_.find(id);
    return it != peers_.end() && it->second.stage == Peer::Stage::kSynced ? it->second.acked : 0;
  });
  if (z <= s_.committed) return;
  // A reconfiguration committed now may change a learner's part; it learns
  // that from this Commit (followers) or Inform (observers), up to the
  // change when it must rejoin in its new part.
  const Zxid version_before = s_.cfg.membership_version;
  s_.advance_commit(z);
  const Zxid changed_at =
      s_.cfg.membership_version != version_before ? s_.cfg.membership_version : 0;
  for (auto& [id, p] : peers_) {
    if (p.stage < Peer::Stage::kSyncing) continue;
    if (!p.observer) {
      if (changed_at != 0 && s_.is_observer(id)) {
        // Made an observer: up to the change only, which sends it back to
        // election; it syncs again as an observer.
        s_.send({.type = MsgType::kCommit, .to = id, .epoch = new_epoch_, .zxid = changed_at});
        p.observer = true;
        p.informed = s_.committed;
        continue;
      }
      // A voter, or a follower that votes in neither membership (joining,
      // or removed): it follows on.
      s_.send({.type = MsgType::kCommit, .to = id, .epoch = new_epoch_, .zxid = s_.committed});
      continue;
    }
    if (changed_at == 0 || !s_.is_voter(id)) continue;
    // Made a voter: informed up to the change, which sends it back to
    // election; it syncs again as a follower. (A removed observer is
    // informed on, as an observer the membership does not name; the change
    // sends it back too, and it rejoins as a follower.)
    if (p.informed < changed_at) {
      Message m{.type = MsgType::kInform, .to = id, .epoch = new_epoch_, .zxid = p.informed};
      m.entries = s_.log.range(p.informed, changed_at);
      s_.send(std::move(m));
    }
    p.informed = s_.committed;
  }
  inform_observers();
  answer_peer_syncs();
}

// Sends each observer being synced or synced the committed entries after
// what it was sent already (its sync, earlier Informs), in order.
void LeaderRole::inform_observers() {
  for (auto& [id, p] : peers_) {
    if (p.stage < Peer::Stage::kSyncing || !p.observer || s_.is_voter(id) ||
        p.informed >= s_.committed) {
      continue;
    }
    Message m{.type = MsgType::kInform, .to = id, .epoch = new_epoch_, .zxid = p.informed};
    m.entries = s_.log.range(p.informed, s_.committed);
    p.informed = s_.committed;
    s_.send(std::move(m));
  }
}

void LeaderRole::answer_peer_syncs() {
  std::erase_if(s_.peer_syncs, [&](const PeerSync& s) {
    if (s.zxid > s_.committed || !confirmed(s.round)) return false;
    if (s.from == s_.cfg.id) {  // our own: applied up to zxid, it is done
      for (LocalSync& local : s_.local_syncs) {
        if (local.request_id == s.request_id && !local.zxid) {
          local.zxid = s.zxid;
          break;
        }
      }
      return true;
    }
    auto it = peers_.find(s.from);
    if (it != peers_.end() && it->second.stage == Peer::Stage::kSynced) {
      s_.send({.type = MsgType::kSyncReply,
               .to = s.from,
               .epoch = new_epoch_,
               .zxid = s.zxid,
               .request_id = s.request_id});
    }
    return true;
  });
}

void LeaderRole::link_down(ServerId peer) {
  if (peers_.erase(peer) == 0) return;
  if (phase_ == Phase::kBroadcast && !quorum_where(at_least(Peer::Stage::kSynced), true)) {
    changes_.look();
  }
}

void LeaderRole::tick() {
  ++phase_ticks_;
  for (auto it = peers_.begin(); it != peers_.end();) {
    Peer& p = it->second;
    ++p.silent_ticks;
    bool drop = false;
    if (p.stage == Peer::Stage::kSynced) {
      drop = p.silent_ticks >= s_.cfg.sync_limit;
    } else {
      ++p.handshake_ticks;
      drop = p.silent_ticks >= s_.cfg.init_limit || p.handshake_ticks >= s_.cfg.init_limit;
    }
    it = drop ? peers_.erase(it) : std::next(it);
  }
  if (phase_ != Phase::kBroadcast) {
    if (phase_ticks_ >= s_.cfg.init_limit) {
      changes_.look();
      return;
    }
  } else if (!quorum_where(at_least(Peer::Stage::kSynced), true)) {
    changes_.look();  // lost the quorum of responsive, synced followers
    return;
  }
  if (transfer_to_ != 0 && ++transfer_ticks_ >= s_.cfg.sync_limit) transfer_to_ = 0;
  // No voter any more (on_membership_change) and the hand-over was
  // abandoned: try again.
  if (!s_.voting() && transfer_to_ == 0 && phase_ == Phase::kBroadcast &&
      !hand_over_or_step_down()) {
    return;
  }
  ping_learners();
  // After the busy pings: they left while the last step's messages did.
  for (auto& [id, p] : peers_) {
    if (p.snap_due && p.stage == Peer::Stage::kAckedEpoch) {
      p.snap_due = false;
      sync_peer(id, p);
    }
  }
}

void LeaderRole::ping_learners() {
  bool busy = false;
  for (const auto& [id, p] : peers_) busy = busy || p.snap_due;
  for (const auto& [id, p] : peers_) {
    s_.send({.type = MsgType::kPing,
             .to = id,
             .epoch = new_epoch_,
             // Every proposal (observer: Inform) sent to it so far.
             .zxid = p.observer ? p.informed : s_.log.last(),
             // Before establishment our commit point may be a restart's
             // replay of an uncommitted log: not evidence of a commit.
             .committed = phase_ == Phase::kBroadcast ? s_.committed : 0,
             .request_id = round_,
             .busy = busy});
  }
}

Error LeaderRole::transfer(ServerId to) {
  if (phase_ != Phase::kBroadcast) return Error::kNotServing;
  if (to == 0) {
    // The synced follower with the most acked (the lowest id on a tie).
    Zxid best = 0;
    for (const auto& [id, p] : peers_) {
      if (p.stage != Peer::Stage::kSynced || p.observer || !s_.is_voter(id)) continue;
      if (to == 0 || p.acked > best) {
        to = id;
        best = p.acked;
      }
    }
  }
  const auto it = peers_.find(to);
  if (to == s_.cfg.id || it == peers_.end() || it->second.stage != Peer::Stage::kSynced ||
      it->second.observer || !s_.is_voter(to)) {
    return Error::kNoSuchFollower;
  }
  transfer_to_ = to;
  transfer_ticks_ = 0;
  maybe_hand_over();
  return Error::kOk;
}

void LeaderRole::maybe_hand_over() {
  if (transfer_to_ == 0) return;
  const auto it = peers_.find(transfer_to_);
  if (it == peers_.end() || it->second.stage != Peer::Stage::kSynced) {
    transfer_to_ = 0;  // it left: abandoned
    return;
  }
  if (it->second.acked < s_.log.last()) return;
  changes_.hand_over(transfer_to_);  // resets this role: nothing after it
}

}  // namespace zkd::zab
