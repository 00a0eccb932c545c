// SPDX-License-Identifier: Apache-2.0
// The Zab core: construction, input dispatch, the Ready batch and helpers
// shared by the phases. Election: election.cc; leader: leader.cc; learner:
// learner.cc.
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
  }
  return "?";
}

Zab::Zab(Config config, Bootstrap boot)
    : cfg_(std::move(config)), hard_(boot.hard_state), log_(boot.base, std::move(boot.entries)) {
  assert(validate(cfg_).empty());
  observer_ = is_observer(cfg_.id);
  durable_ = log_.last();
  reported_durable_ = durable_;
  applied_ = std::clamp(boot.applied, log_.base(), log_.last());
  committed_ = applied_;
  attempt_ = static_cast<uint64_t>(boot.incarnation) << 32;
  become_looking();
}

// --- inputs ---

void Zab::step(const Message& m) {
  if (m.to != cfg_.id || m.from == cfg_.id) return;
  unreachable_.erase(m.from);  // its link is up again
  if (m.type == MsgType::kVote) {
    on_vote(m);
    return;
  }
  switch (role_) {
    case Role::kLooking:
      return;
    case Role::kLeading:
      on_leader_message(m);
      return;
    case Role::kFollowing:
    case Role::kObserving:
      on_learner_message(m);
      return;
  }
}

void Zab::tick() {
  switch (role_) {
    case Role::kLooking:
      tick_looking();
      return;
    case Role::kLeading:
      tick_leader();
      return;
    case Role::kFollowing:
    case Role::kObserving:
      tick_learner();
      return;
  }
}

Proposed Zab::propose(std::string payload) {
  if (role_ != Role::kLeading) return {0, Error::kNotLeader};
  if (phase_ != LeaderPhase::kBroadcast) return {0, Error::kNotServing};
  if (next_counter_ > cfg_.max_counter) {
    // A new epoch is the only way to get new zxids: step down, re-elect.
    become_looking();
    return {0, Error::kCounterExhausted};
  }
  Entry e{make_zxid(new_epoch_, static_cast<uint32_t>(next_counter_++)), std::move(payload)};
  const Zxid zxid = e.zxid;
  append(e);
  for (auto& [id, p] : peers_) {
    // Observers get the entry in an Inform once it is committed.
    if (p.stage < Peer::Stage::kSyncing || !is_voter(id)) continue;
    Message m{.type = MsgType::kProposal, .to = id, .epoch = new_epoch_};
    m.entries.push_back(e);
    send(std::move(m));
  }
  maybe_commit();  // a single-voter ensemble commits on its own durability
  return {zxid, Error::kOk};
}

void Zab::send_digest(Zxid zxid, uint64_t digest) {
  if (role_ != Role::kLeading || phase_ != LeaderPhase::kBroadcast) return;
  for (auto& [id, p] : peers_) {
    if (p.stage != Peer::Stage::kSynced) continue;
    send({.type = MsgType::kDigest, .to = id, .epoch = new_epoch_, .zxid = zxid, .digest = digest});
  }
}

Error Zab::forward(std::string payload) {
  if (!learning() || stage_ != LearnerStage::kBroadcast) return Error::kNotServing;
  send({.type = MsgType::kRequest,
        .to = leader_,
        .epoch = hard_.accepted_epoch,
        .payload = std::move(payload)});
  return Error::kOk;
}

Error Zab::sync(uint64_t request_id) {
  if (role_ == Role::kLeading && phase_ == LeaderPhase::kBroadcast) {
    local_syncs_.push_back({request_id, log_.last()});
    return Error::kOk;
  }
  if (learning() && stage_ == LearnerStage::kBroadcast) {
    local_syncs_.push_back({request_id, std::nullopt});
    send({.type = MsgType::kSync,
          .to = leader_,
          .epoch = hard_.accepted_epoch,
          .request_id = request_id});
    return Error::kOk;
  }
  return Error::kNotServing;
}

void Zab::persisted(Zxid zxid) {
  reported_durable_ = std::max(reported_durable_, zxid);
  if (pending_snapshot_) return;  // entries after it wait for the snapshot
  durable_ = std::max(durable_, std::min(zxid, log_.last()));
  if (role_ == Role::kLeading) {
    maybe_establish();
    maybe_commit();
  } else if (learning()) {
    learner_send_acks();
  }
}

void Zab::snapshot_installed(Zxid zxid) {
  if (pending_snapshot_ != zxid) return;
  pending_snapshot_.reset();
  durable_ = std::max(zxid, std::min(reported_durable_, log_.last()));
  if (learning()) learner_send_acks();
}

// --- output ---

bool Zab::has_ready() const {
  if (!out_.empty() || committed_ > applied_ || status() != last_status_) return true;
  for (const LocalSync& s : local_syncs_) {
    if (s.zxid && *s.zxid <= applied_) return true;
  }
  return false;
}

Ready Zab::ready() {
  assert(!outstanding_);
  outstanding_ = true;
  Ready r = std::move(out_);
  out_ = Ready{};
  // Committed entries, cut at the zxid of a snapshot sent in this batch so
  // that the host's state after applying them is that snapshot.
  const Zxid upto = std::min(committed_, snapshot_cut_.value_or(committed_));
  snapshot_cut_.reset();
  if (upto > applied_) {
    r.committed = log_.range(applied_, upto);
    applied_ = upto;
  }
  std::erase_if(local_syncs_, [&](const LocalSync& s) {
    if (!s.zxid || *s.zxid > applied_) return false;
    r.syncs_done.push_back(s.request_id);
    return true;
  });
  if (const Status now = status(); now != last_status_) {
    r.status = now;
    last_status_ = now;
  }
  log_.trim(applied_, cfg_.commit_window);
  return r;
}

void Zab::advance() {
  assert(outstanding_);
  outstanding_ = false;
}

Status Zab::status() const {
  Status s{.role = role_, .leader = leader_, .serving = serving_};
  if (role_ == Role::kLeading) s.epoch = new_epoch_;
  if (learning() && stage_ != LearnerStage::kDiscovery) s.epoch = hard_.accepted_epoch;
  return s;
}

// --- helpers ---

void Zab::send(Message m) {
  m.from = cfg_.id;
  out_.messages.push_back(std::move(m));
}

void Zab::set_hard_state(HardState h) {
  if (h == hard_) return;
  hard_ = h;
  out_.hard_state = h;
}

bool Zab::append(Entry entry) {
  if (!log_.append(entry)) return false;
  out_.entries.push_back(std::move(entry));
  return true;
}

void Zab::advance_commit(Zxid zxid) {
  committed_ = std::max(committed_, std::min(zxid, log_.last()));
}

bool Zab::is_voter(ServerId id) const {
  return std::find(cfg_.voters.begin(), cfg_.voters.end(), id) != cfg_.voters.end();
}

bool Zab::is_observer(ServerId id) const {
  return std::find(cfg_.observers.begin(), cfg_.observers.end(), id) != cfg_.observers.end();
}

void Zab::fail_syncs() {
  for (const LocalSync& s : local_syncs_) out_.syncs_failed.push_back(s.request_id);
  local_syncs_.clear();
  peer_syncs_.clear();
}

size_t Zab::synced_learners() const {
  return role_ == Role::kLeading ? count_voters(Peer::Stage::kSynced) : 0;
}

size_t Zab::synced_observers() const {
  if (role_ != Role::kLeading) return 0;
  return static_cast<size_t>(std::count_if(peers_.begin(), peers_.end(), [&](const auto& p) {
    return p.second.stage == Peer::Stage::kSynced && is_observer(p.first);
  }));
}

}  // namespace zkd::zab
