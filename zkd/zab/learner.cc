// SPDX-License-Identifier: Apache-2.0
// The learner, follower or observer: discovery (FollowerInfo, then accept
// the leader's new epoch), synchronisation (Trunc / Snap, Diff, NewLeader:
// take the leader's history, then ack it once durable) and broadcast (a
// follower logs proposals, acks them once durable, applies on Commit; an
// observer logs and applies Informs, and never acks them).
#include <algorithm>

#include "zkd/zab/zab.h"

namespace zkd::zab {

void Zab::become_follower(ServerId leader) {
  fail_syncs();
  role_ = observer_ ? Role::kObserving : Role::kFollowing;
  leader_ = leader;
  serving_ = false;
  stage_ = LearnerStage::kDiscovery;
  ++attempt_;
  leader_silent_ticks_ = 0;
  handshake_ticks_ = 0;
  ack_new_leader_at_.reset();
  acked_ = 0;
  send_follower_info();
}

void Zab::send_follower_info() {
  send({.type = MsgType::kFollowerInfo,
        .to = leader_,
        .epoch = hard_.accepted_epoch,
        .attempt = attempt_});
}

void Zab::protocol_error() { become_looking(); }

void Zab::link_down(ServerId peer) {
  if (is_voter(peer)) unreachable_.insert(peer);
  if (learning() && peer == leader_) {
    become_looking();
  } else if (role_ == Role::kLooking && finalize_left_ > 0 && quorum_agrees(received_, vote_)) {
    on_quorum_agrees();  // it may have been the voter we waited for
  }
}

void Zab::on_learner_message(const Message& m) {
  if (m.from != leader_) return;
  leader_silent_ticks_ = 0;
  if (m.type == MsgType::kLeaderInfo) {
    if (stage_ != LearnerStage::kDiscovery || m.attempt != attempt_) return;
    if (m.epoch < hard_.accepted_epoch) {
      protocol_error();  // we promised a later epoch to someone else
      return;
    }
    // Equal: we already took this epoch from some leader, maybe another
    // one. We may join it, but must not count toward establishing it again.
    const bool fresh = m.epoch > hard_.accepted_epoch;
    if (fresh) set_hard_state({.accepted_epoch = m.epoch, .current_epoch = hard_.current_epoch});
    send({.type = MsgType::kAckEpoch,
          .to = leader_,
          .epoch = m.epoch,
          .current_epoch = hard_.current_epoch,
          .zxid = log_.last(),
          .attempt = attempt_,
          .fresh = fresh});
    stage_ = LearnerStage::kSync;
    return;
  }
  if (stage_ == LearnerStage::kDiscovery || m.epoch != hard_.accepted_epoch) return;
  const bool accepting =
      stage_ == LearnerStage::kAwaitUpToDate || stage_ == LearnerStage::kBroadcast;
  switch (m.type) {
    case MsgType::kTrunc: {
      if (stage_ != LearnerStage::kSync) return;
      const Zxid t = m.zxid;
      log_.truncate_after(t);
      committed_ = std::min(committed_, t);
      applied_ = std::min(applied_, t);
      durable_ = std::min(durable_, log_.last());
      reported_durable_ = std::min(reported_durable_, t);
      out_.truncate_after = std::min(out_.truncate_after.value_or(t), t);
      std::erase_if(out_.entries, [&](const Entry& e) { return e.zxid > t; });
      return;
    }
    case MsgType::kSnap: {
      if (stage_ != LearnerStage::kSync) return;
      const Zxid s = m.zxid;
      log_.reset(s);
      committed_ = applied_ = s;
      durable_ = std::min(durable_, s);
      pending_snapshot_ = s;
      reported_durable_ = 0;
      out_.install_snapshot = s;
      out_.truncate_after.reset();
      out_.entries.clear();
      return;
    }
    case MsgType::kDiff:
      if (stage_ != LearnerStage::kSync) return;
      if (m.zxid != log_.last()) {
        protocol_error();  // a Trunc or Snap before it was lost
        return;
      }
      // A Diff continues the log without a hole (zab::follows), as Apache's
      // learners check since ZOOKEEPER-4925: a skipped txn is never repaired.
      for (const Entry& e : m.entries) {
        if (!follows(log_.last(), e.zxid) || !append(e)) {
          protocol_error();
          return;
        }
      }
      return;
    case MsgType::kNewLeader:
      if (stage_ != LearnerStage::kSync) return;
      if (m.zxid != log_.last()) {
        protocol_error();
        return;
      }
      // currentEpoch is taken with the ack, once the history is durable: a
      // replica must never claim epoch m.epoch with a shorter log (its vote
      // would beat replicas that hold the committed history).
      ack_new_leader_at_ = log_.last();
      stage_ = LearnerStage::kAwaitUpToDate;
      learner_send_acks();
      return;
    case MsgType::kUpToDate:
      if (stage_ != LearnerStage::kAwaitUpToDate) return;
      stage_ = LearnerStage::kBroadcast;
      serving_ = true;
      advance_commit(m.zxid);
      return;
    case MsgType::kProposal:
      if (!accepting || observer_) return;
      for (const Entry& e : m.entries) {
        // Proposals of one epoch have consecutive counters: a gap means the
        // link lost messages, and only a new handshake can repair that.
        const Zxid last = log_.last();
        const Zxid expected = epoch_of(last) == m.epoch ? last + 1 : make_zxid(m.epoch, 1);
        if (e.zxid != expected || !append(e)) {
          protocol_error();
          return;
        }
      }
      learner_send_acks();
      return;
    case MsgType::kCommit:
      if (!accepting || observer_) return;
      if (m.zxid > log_.last()) {
        protocol_error();  // the link lost the Proposal: only a resync repairs it
        return;
      }
      advance_commit(m.zxid);
      return;
    case MsgType::kInform:
      if (!accepting || !observer_) return;
      // The leader sends an observer each committed entry once, in order: a
      // log that does not end where this Inform starts lost one.
      if (m.zxid != log_.last()) {
        protocol_error();
        return;
      }
      for (const Entry& e : m.entries) {
        if (!append(e)) {
          protocol_error();
          return;
        }
      }
      if (!m.entries.empty()) advance_commit(m.entries.back().zxid);
      return;
    case MsgType::kPing:
      if (accepting) {
        // Every proposal the leader made before this Ping was sent to us
        // (FIFO): a log ending before its last one lost a Proposal. Its
        // commit point repairs a lost Commit.
        if (m.zxid > log_.last()) {
          protocol_error();
          return;
        }
        advance_commit(m.committed);
      }
      send({.type = MsgType::kPing, .to = leader_, .epoch = hard_.accepted_epoch, .zxid = acked_});
      return;
    case MsgType::kDigest:
      if (accepting) out_.digests.emplace_back(m.zxid, m.digest);
      return;
    case MsgType::kSyncReply:
      for (LocalSync& s : local_syncs_) {
        if (s.request_id == m.request_id && !s.zxid) {
          s.zxid = m.zxid;
          break;
        }
      }
      return;
    default:
      return;
  }
}

// Acks only what is durable: first the history taken at NewLeader (with
// currentEpoch, persisted before the ack leaves), then proposals
// (cumulatively; observers ack only NewLeader).
void Zab::learner_send_acks() {
  if (!learning() || pending_snapshot_) return;
  if (stage_ != LearnerStage::kAwaitUpToDate && stage_ != LearnerStage::kBroadcast) return;
  if (ack_new_leader_at_) {
    if (durable_ < *ack_new_leader_at_) return;
    set_hard_state({.accepted_epoch = hard_.accepted_epoch, .current_epoch = hard_.accepted_epoch});
    send({.type = MsgType::kAckNewLeader,
          .to = leader_,
          .epoch = hard_.accepted_epoch,
          .zxid = *ack_new_leader_at_,
          .attempt = attempt_});
    acked_ = *ack_new_leader_at_;
    ack_new_leader_at_.reset();
  }
  if (durable_ > acked_ && !observer_) {
    send({.type = MsgType::kAck, .to = leader_, .epoch = hard_.accepted_epoch, .zxid = durable_});
    acked_ = durable_;
  }
}

void Zab::tick_learner() {
  ++leader_silent_ticks_;
  if (stage_ != LearnerStage::kBroadcast && ++handshake_ticks_ >= cfg_.init_limit) {
    become_looking();
    return;
  }
  const int limit = stage_ == LearnerStage::kBroadcast ? cfg_.sync_limit : cfg_.init_limit;
  if (leader_silent_ticks_ >= limit) {
    become_looking();
    return;
  }
  if (stage_ == LearnerStage::kDiscovery) send_follower_info();  // the leader may not lead yet
}

}  // namespace zkd::zab
