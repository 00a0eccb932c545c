// SPDX-License-Identifier: Apache-2.0
#include "zkd/zab/learner_role.h"

#include "zkd/zab/membership_note.h"

#include <algorithm>
#include <utility>

namespace zkd::zab {

void LearnerRole::start() {
  stage_ = Stage::kDiscovery;
  ++attempt_;
  leader_silent_ticks_ = 0;
  leader_busy_ = false;
  handshake_ticks_ = 0;
  ack_new_leader_at_.reset();
  acked_ = 0;
  send_follower_info();
}

void LearnerRole::send_follower_info() {
  s_.send({.type = MsgType::kFollowerInfo,
           .to = s_.leader,
           .epoch = s_.hard.accepted_epoch,
           .attempt = attempt_,
           .observing = observing()});
}

void LearnerRole::reset() {
  stage_ = Stage::kDiscovery;
  ack_new_leader_at_.reset();
}

Error LearnerRole::forward(std::string payload) {
  if (stage_ != Stage::kBroadcast) return Error::kNotServing;
  s_.send({.type = MsgType::kRequest,
           .to = s_.leader,
           .epoch = s_.hard.accepted_epoch,
           .payload = std::move(payload)});
  return Error::kOk;
}

bool LearnerRole::sync(uint64_t request_id) {
  if (stage_ != Stage::kBroadcast) return false;
  s_.local_syncs.push_back({request_id, std::nullopt});
  s_.send({.type = MsgType::kSync,
           .to = s_.leader,
           .epoch = s_.hard.accepted_epoch,
           .request_id = request_id});
  return true;
}

void LearnerRole::on_message(const Message& m) {
  if (m.from != s_.leader) return;
  leader_silent_ticks_ = 0;
  if (m.type == MsgType::kLeaderInfo) {
    if (stage_ != Stage::kDiscovery || m.attempt != attempt_) return;
    if (m.epoch < s_.hard.accepted_epoch) {
      changes_.look();  // we promised a later epoch to someone else
      return;
    }
    // Equal: we already took this epoch from some leader, maybe another
    // one. We may join it, but must not count toward establishing it again.
    const bool fresh = m.epoch > s_.hard.accepted_epoch;
    if (fresh)
      s_.set_hard_state({.accepted_epoch = m.epoch, .current_epoch = s_.hard.current_epoch});
    s_.send({.type = MsgType::kAckEpoch,
             .to = s_.leader,
             .epoch = m.epoch,
             .current_epoch = s_.hard.current_epoch,
             .zxid = s_.log.last(),
             .committed = s_.log.base(),
             .attempt = attempt_,
             .fresh = fresh});
    stage_ = Stage::kSync;
    return;
  }
  if (stage_ == Stage::kDiscovery || m.epoch != s_.hard.accepted_epoch) return;
  const bool accepting = stage_ == Stage::kAwaitUpToDate || stage_ == Stage::kBroadcast;
  switch (m.type) {
    case MsgType::kTrunc: {
      if (stage_ != Stage::kSync) return;
      const Zxid t = m.zxid;
      s_.truncate_after(t);
      s_.committed = std::min(s_.committed, t);
      s_.applied = std::min(s_.applied, t);
      s_.durable = std::min(s_.durable, s_.log.last());
      s_.reported_durable = std::min(s_.reported_durable, t);
      s_.out.truncate_after = std::min(s_.out.truncate_after.value_or(t), t);
      std::erase_if(s_.out.entries, [&](const Entry& e) { return e.zxid > t; });
      return;
    }
    case MsgType::kSnap: {
      if (stage_ != Stage::kSync) return;
      const Zxid s = m.zxid;
      s_.reset_to_snapshot(s);  // its membership: snapshot_installed()
      s_.committed = s_.applied = s;
      s_.durable = std::min(s_.durable, s);
      s_.pending_snapshot = s;
      s_.reported_durable = 0;
      s_.out.install_snapshot = s;
      s_.out.truncate_after.reset();
      s_.out.entries.clear();
      return;
    }
    case MsgType::kDiff:
      if (stage_ != Stage::kSync) return;
      if (m.zxid != s_.log.last()) {
        changes_.look();  // a Trunc or Snap before it was lost
        return;
      }
      // A Diff continues the log without a hole (zab::follows), as Apache's
      // learners check since ZOOKEEPER-4925: a skipped txn is never repaired.
      for (const Entry& e : m.entries) {
        if (!follows(s_.log.last(), e.zxid) || !s_.append(e)) {
          changes_.look();
          return;
        }
      }
      return;
    case MsgType::kNewLeader:
      if (stage_ != Stage::kSync) return;
      if (m.zxid != s_.log.last()) {
        changes_.look();
        return;
      }
      // currentEpoch is taken with the ack, once the history is durable: a
      // replica must never claim epoch m.epoch with a shorter log (its vote
      // would beat replicas that hold the committed history).
      ack_new_leader_at_ = s_.log.last();
      stage_ = Stage::kAwaitUpToDate;
      send_acks();
      return;
    case MsgType::kUpToDate:
      if (stage_ != Stage::kAwaitUpToDate) return;
      stage_ = Stage::kBroadcast;
      s_.serving = true;
      s_.advance_commit(m.zxid);
      // The leader's committed membership, when later than ours (a joiner's
      // file, or version 0 before the leader's first establishment).
      if (auto note = read_membership_note(m.payload)) {
        s_.take_later(std::move(note->first), note->second);
      }
      return;
    case MsgType::kProposal:
      if (!accepting || observing()) return;
      for (const Entry& e : m.entries) {
        // Proposals of one epoch have consecutive counters: a gap means the
        // link lost messages, and only a new handshake can repair that.
        const Zxid last = s_.log.last();
        const Zxid expected = epoch_of(last) == m.epoch ? last + 1 : make_zxid(m.epoch, 1);
        if (e.zxid != expected || !s_.append(e)) {
          changes_.look();
          return;
        }
      }
      send_acks();
      return;
    case MsgType::kCommit:
      if (!accepting || observing()) return;
      if (m.zxid > s_.log.last()) {
        changes_.look();  // the link lost the Proposal: only a resync repairs it
        return;
      }
      s_.advance_commit(m.zxid);
      return;
    case MsgType::kInform:
      if (!accepting || !observing()) return;
      // The leader sends an observer each committed entry once, in order: a
      // log that does not end where this Inform starts lost one.
      if (m.zxid != s_.log.last()) {
        changes_.look();
        return;
      }
      for (const Entry& e : m.entries) {
        if (!s_.append(e)) {
          changes_.look();
          return;
        }
      }
      if (!m.entries.empty()) s_.advance_commit(m.entries.back().zxid);
      return;
    case MsgType::kPing:
      if (accepting) {
        // Every proposal the leader made before this Ping was sent to us
        // (FIFO): a log ending before its last one lost a Proposal. Its
        // commit point repairs a lost Commit.
        if (m.zxid > s_.log.last()) {
          changes_.look();
          return;
        }
        s_.advance_commit(m.committed);
      }
      leader_busy_ = m.busy;
      s_.send({.type = MsgType::kPing,
               .to = s_.leader,
               .epoch = s_.hard.accepted_epoch,
               .zxid = acked_,
               .request_id = m.request_id});  // the leader's confirmation round
      return;
    case MsgType::kDigest:
      if (accepting) s_.out.digests.emplace_back(m.zxid, m.digest);
      return;
    case MsgType::kSyncReply:
      for (LocalSync& s : s_.local_syncs) {
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
// (cumulatively; observers ack only NewLeader). A follower that votes in
// no membership acks too: once a reconfiguration names it a voter, its acks
// count at once (join, then vote).
void LearnerRole::send_acks() {
  if (!s_.learning() || s_.pending_snapshot) return;
  if (stage_ != Stage::kAwaitUpToDate && stage_ != Stage::kBroadcast) return;
  if (ack_new_leader_at_) {
    if (s_.durable < *ack_new_leader_at_) return;
    s_.set_hard_state(
        {.accepted_epoch = s_.hard.accepted_epoch, .current_epoch = s_.hard.accepted_epoch});
    s_.send({.type = MsgType::kAckNewLeader,
             .to = s_.leader,
             .epoch = s_.hard.accepted_epoch,
             .zxid = *ack_new_leader_at_,
             .attempt = attempt_});
    acked_ = *ack_new_leader_at_;
    ack_new_leader_at_.reset();
  }
  if (s_.durable > acked_ && !observing()) {
    s_.send({.type = MsgType::kAck,
             .to = s_.leader,
             .epoch = s_.hard.accepted_epoch,
             .zxid = s_.durable});
    acked_ = s_.durable;
  }
}

void LearnerRole::tick() {
  ++leader_silent_ticks_;
  if (stage_ != Stage::kBroadcast && ++handshake_ticks_ >= s_.cfg.init_limit) {
    changes_.look();
    return;
  }
  const int broadcast_limit =
      leader_busy_ ? std::max(s_.cfg.sync_limit, s_.cfg.busy_limit) : s_.cfg.sync_limit;
  const int limit = stage_ == Stage::kBroadcast ? broadcast_limit : s_.cfg.init_limit;
  if (leader_silent_ticks_ >= limit) {
    changes_.look();
    return;
  }
  if (stage_ == Stage::kDiscovery) send_follower_info();  // the leader may not lead yet
}

}  // namespace zkd::zab
