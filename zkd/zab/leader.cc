// SPDX-License-Identifier: Apache-2.0
// The leader: discovery (choose a new epoch from a quorum's accepted epochs),
// synchronisation (DIFF / TRUNC / SNAP then NEWLEADER per learner; the epoch
// is established once a quorum acked NEWLEADER) and broadcast (PROPOSAL, ACK,
// COMMIT, pipelined; commit in zxid order on a quorum of durable acks).
// Observers are synced the same way but never counted; in broadcast they get
// committed entries by INFORM instead of PROPOSAL and COMMIT.
#include <algorithm>

#include "zkd/zab/zab.h"

namespace zkd::zab {

void Zab::become_leader() {
  fail_syncs();
  role_ = Role::kLeading;
  leader_ = cfg_.id;
  serving_ = false;
  phase_ = LeaderPhase::kDiscovery;
  new_epoch_ = 0;
  phase_ticks_ = 0;
  initial_last_ = log_.last();
  peers_.clear();
  maybe_choose_epoch();  // a single-voter ensemble needs no one else
}

size_t Zab::count_voters(Peer::Stage at_least) const {
  size_t n = 0;
  for (const auto& [id, p] : peers_) {
    if (p.stage >= at_least && is_voter(id)) ++n;
  }
  return n;
}

void Zab::on_leader_message(const Message& m) {
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
    case MsgType::kPing:  // carries the learner's last Ack again
      if (this_epoch && p.stage == Peer::Stage::kSynced && is_voter(m.from)) {
        p.acked = std::max(p.acked, std::min(m.zxid, log_.last()));
        maybe_commit();
      }
      return;
    case MsgType::kRequest:
      if (phase_ == LeaderPhase::kBroadcast && p.stage == Peer::Stage::kSynced) {
        out_.requests.push_back({m.from, m.payload});
      }
      return;
    case MsgType::kSync:
      if (phase_ == LeaderPhase::kBroadcast && p.stage == Peer::Stage::kSynced) {
        // Ordered behind every proposal made so far.
        peer_syncs_.push_back({m.from, m.request_id, log_.last()});
        answer_peer_syncs();
      }
      return;
    default:
      return;  // not for a leader
  }
}

void Zab::on_follower_info(const Message& m) {
  if (!is_voter(m.from) && !is_observer(m.from)) return;
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
    if (is_voter(m.from)) {
      epoch_floor_ = std::max(epoch_floor_, m.epoch);
      become_looking();
    } else {
      peers_.erase(m.from);
    }
    return;
  }
  Peer& p = peers_[m.from];
  p = Peer{.stage = Peer::Stage::kGotInfo, .attempt = m.attempt, .accepted_epoch = m.epoch};
  if (new_epoch_ != 0) {
    send_leader_info(m.from, p);
  } else {
    maybe_choose_epoch();
  }
}

void Zab::send_leader_info(ServerId id, Peer& p) {
  send({.type = MsgType::kLeaderInfo, .to = id, .epoch = new_epoch_, .attempt = p.attempt});
  p.stage = Peer::Stage::kAwaitAckEpoch;
}

// Only voters' accepted epochs count: observers take no part in establishing
// epochs. An observer that accepted a later one would refuse ours: left out.
void Zab::maybe_choose_epoch() {
  if (new_epoch_ != 0 || count_voters(Peer::Stage::kGotInfo) + 1 < quorum()) return;
  Epoch e = std::max(hard_.accepted_epoch, epoch_floor_);
  for (const auto& [id, p] : peers_) {
    if (is_voter(id)) e = std::max(e, p.accepted_epoch);
  }
  if (e >= kMaxEpoch) return;  // out of epochs: stay here until init_limit
  new_epoch_ = e + 1;
  set_hard_state({.accepted_epoch = new_epoch_, .current_epoch = hard_.current_epoch});
  std::erase_if(peers_, [&](const auto& kv) {
    return !is_voter(kv.first) && kv.second.accepted_epoch > new_epoch_;
  });
  for (auto& [id, p] : peers_) send_leader_info(id, p);
  maybe_finish_discovery();
}

void Zab::on_ack_epoch(ServerId id, Peer& p, const Message& m) {
  p.current_epoch = m.current_epoch;
  p.last_zxid = m.zxid;
  p.fresh = m.fresh;
  if (phase_ != LeaderPhase::kDiscovery) {
    sync_peer(id, p);
    return;
  }
  // A quorum member with a more recent history than ours: we must not lead
  // (Apache's waitForEpochAck). An observer's history never decides this: it
  // holds no committed entry we lack (docs/zab.md, Discovery); sync
  // truncates what else it has.
  if (is_voter(id) && (p.current_epoch > hard_.current_epoch ||
                       (p.current_epoch == hard_.current_epoch && p.last_zxid > log_.last()))) {
    become_looking();
    return;
  }
  p.stage = Peer::Stage::kAckedEpoch;
  maybe_finish_discovery();
}

void Zab::maybe_finish_discovery() {
  if (phase_ != LeaderPhase::kDiscovery || new_epoch_ == 0) return;
  size_t fresh = 1;  // we took new_epoch_ ourselves when choosing it
  for (const auto& [id, p] : peers_) {
    if (p.stage == Peer::Stage::kAckedEpoch && p.fresh && is_voter(id)) ++fresh;
  }
  if (fresh < quorum()) return;
  phase_ = LeaderPhase::kSync;
  for (auto& [id, p] : peers_) {
    if (p.stage == Peer::Stage::kAckedEpoch) sync_peer(id, p);
  }
  maybe_establish();
}

// Brings one learner from its last zxid to our history: Diff when its last
// zxid is in our log, Trunc then Diff when it has entries we do not (only
// within one epoch, where logs are prefixes of one sequence), Snap then Diff
// otherwise. Then NewLeader; from now on a follower gets every proposal.
// An observer is brought only to what it may apply once told UpToDate: our
// whole history while the epoch is being established (all of it is committed
// at establishment), the committed prefix later; Informs carry the rest.
void Zab::sync_peer(ServerId id, Peer& p) {
  const Zxid peer_last = p.last_zxid;
  const Zxid upto = is_voter(id) || phase_ != LeaderPhase::kBroadcast ? log_.last() : committed_;
  Zxid from = peer_last;
  if (!log_.contains(peer_last) || peer_last > upto) {
    const auto t = log_.before(peer_last);
    if (t && epoch_of(*t) == epoch_of(peer_last) && *t <= upto) {
      from = *t;
      send({.type = MsgType::kTrunc, .to = id, .epoch = new_epoch_, .zxid = from});
    } else {
      // The host's state after applying this batch's committed entries.
      from = snapshot_cut_.value_or(committed_);
      snapshot_cut_ = from;
      send({.type = MsgType::kSnap, .to = id, .epoch = new_epoch_, .zxid = from});
    }
  }
  Message diff{.type = MsgType::kDiff, .to = id, .epoch = new_epoch_, .zxid = from};
  diff.entries = log_.range(from, upto);
  send(std::move(diff));
  send({.type = MsgType::kNewLeader, .to = id, .epoch = new_epoch_, .zxid = upto});
  p.stage = Peer::Stage::kSyncing;
  p.acked = 0;
  p.informed = upto;
}

void Zab::on_ack_new_leader(Peer& p, const Message& m) {
  p.stage = Peer::Stage::kSynced;
  p.acked = std::min(m.zxid, log_.last());
  if (phase_ != LeaderPhase::kBroadcast) {
    maybe_establish();
    return;
  }
  send({.type = MsgType::kUpToDate, .to = m.from, .epoch = new_epoch_, .zxid = committed_});
  maybe_commit();
}

// The epoch is established once a quorum acked NewLeader (we count once our
// history is durable): our whole initial history is committed.
void Zab::maybe_establish() {
  if (role_ != Role::kLeading || phase_ != LeaderPhase::kSync) return;
  // Like a learner, we take the epoch (currentEpoch) only once our history
  // is durable, and only then count ourselves.
  if (durable_ >= initial_last_ && hard_.current_epoch != new_epoch_) {
    set_hard_state({.accepted_epoch = hard_.accepted_epoch, .current_epoch = new_epoch_});
  }
  const size_t self = hard_.current_epoch == new_epoch_ ? 1 : 0;
  if (count_voters(Peer::Stage::kSynced) + self < quorum()) return;
  phase_ = LeaderPhase::kBroadcast;
  serving_ = true;
  next_counter_ = 1;
  advance_commit(initial_last_);
  inform_observers();
  for (auto& [id, p] : peers_) {
    if (p.stage == Peer::Stage::kSynced) {
      send({.type = MsgType::kUpToDate, .to = id, .epoch = new_epoch_, .zxid = committed_});
    }
  }
  maybe_commit();
}

void Zab::maybe_commit() {
  if (role_ != Role::kLeading || phase_ != LeaderPhase::kBroadcast) return;
  std::vector<Zxid> acked{durable_};
  for (const auto& [id, p] : peers_) {
    if (p.stage == Peer::Stage::kSynced && is_voter(id)) acked.push_back(p.acked);
  }
  const Zxid z = quorum_zxid(std::move(acked), cfg_.voters.size());
  if (z <= committed_) return;
  advance_commit(z);
  for (const auto& [id, p] : peers_) {
    if (p.stage >= Peer::Stage::kSyncing && is_voter(id)) {
      send({.type = MsgType::kCommit, .to = id, .epoch = new_epoch_, .zxid = committed_});
    }
  }
  inform_observers();
  answer_peer_syncs();
}

// Sends each observer being synced or synced the committed entries after
// what it was sent already (its sync, earlier Informs), in order.
void Zab::inform_observers() {
  for (auto& [id, p] : peers_) {
    if (p.stage < Peer::Stage::kSyncing || is_voter(id) || p.informed >= committed_) continue;
    Message m{.type = MsgType::kInform, .to = id, .epoch = new_epoch_, .zxid = p.informed};
    m.entries = log_.range(p.informed, committed_);
    p.informed = committed_;
    send(std::move(m));
  }
}

void Zab::answer_peer_syncs() {
  std::erase_if(peer_syncs_, [&](const PeerSync& s) {
    if (s.zxid > committed_) return false;
    auto it = peers_.find(s.from);
    if (it != peers_.end() && it->second.stage == Peer::Stage::kSynced) {
      send({.type = MsgType::kSyncReply,
            .to = s.from,
            .epoch = new_epoch_,
            .zxid = s.zxid,
            .request_id = s.request_id});
    }
    return true;
  });
}

void Zab::tick_leader() {
  ++phase_ticks_;
  for (auto it = peers_.begin(); it != peers_.end();) {
    Peer& p = it->second;
    ++p.silent_ticks;
    bool drop = false;
    if (p.stage == Peer::Stage::kSynced) {
      drop = p.silent_ticks >= cfg_.sync_limit;
    } else {
      ++p.handshake_ticks;
      drop = p.silent_ticks >= cfg_.init_limit || p.handshake_ticks >= cfg_.init_limit;
    }
    it = drop ? peers_.erase(it) : std::next(it);
  }
  if (phase_ != LeaderPhase::kBroadcast) {
    if (phase_ticks_ >= cfg_.init_limit) {
      become_looking();
      return;
    }
  } else if (count_voters(Peer::Stage::kSynced) + 1 < quorum()) {
    become_looking();  // lost the quorum of responsive, synced followers
    return;
  }
  for (const auto& [id, p] : peers_) {
    send({.type = MsgType::kPing,
          .to = id,
          .epoch = new_epoch_,
          // Every proposal (observer: Inform) sent to it so far.
          .zxid = is_voter(id) ? log_.last() : p.informed,
          // Before establishment our commit point may be a restart's
          // replay of an uncommitted log: not evidence of a commit.
          .committed = phase_ == LeaderPhase::kBroadcast ? committed_ : 0});
  }
}

}  // namespace zkd::zab
