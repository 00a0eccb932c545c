// SPDX-License-Identifier: Apache-2.0
#include "zkd/zab/replica_state.h"

#include <algorithm>
#include <array>
#include <span>
#include <utility>

namespace zkd::zab {

ReplicaState::ReplicaState(Config config, HardState hard_state, Zxid base,
                           std::vector<Entry> entries, Zxid boot_applied)
    : cfg(std::move(config)), hard(hard_state), log(base, std::move(entries)) {
  // Bootstrap: the entries after the snapshot were logged in order; a
  // reconfiguration followed by another was committed (a leader proposes one
  // only once the one before is committed), the last one may not be.
  for (const Entry& e : log.range(log.base(), log.last())) note_membership(e);
  membership_changed = false;
  durable = log.last();
  reported_durable = durable;
  applied = std::clamp(boot_applied, log.base(), log.last());
  committed = applied;
}

void ReplicaState::send(Message m) {
  m.from = cfg.id;
  out.messages.push_back(std::move(m));
}

void ReplicaState::set_hard_state(HardState h) {
  if (h == hard) return;
  hard = h;
  out.hard_state = h;
}

bool ReplicaState::append(Entry entry) {
  if (!log.append(entry)) return false;
  note_membership(entry);
  out.entries.push_back(std::move(entry));
  return true;
}

void ReplicaState::note_membership(const Entry& entry) {
  if (!cfg.membership_of) return;
  std::optional<Membership> m = cfg.membership_of(entry);
  if (!m) return;
  if (next) take(std::move(next->members), next->zxid);
  next = NextMembership{entry.zxid, std::move(*m)};
}

void ReplicaState::take(Membership members, Zxid version) {
  cfg.voters = std::move(members.voters);
  cfg.observers = std::move(members.observers);
  cfg.membership_version = version;
  membership_changed = true;
}

void ReplicaState::take_later(Membership members, Zxid version) {
  if (version <= cfg.membership_version) return;
  if (next && next->zxid <= version) next.reset();
  if (members.voters == cfg.voters && members.observers == cfg.observers) {
    cfg.membership_version = version;  // the same servers: nothing to react to
    return;
  }
  take(std::move(members), version);
}

void ReplicaState::truncate_after(Zxid zxid) {
  log.truncate_after(zxid);
  if (next && next->zxid > zxid) next.reset();
}

void ReplicaState::reset_to_snapshot(Zxid zxid) {
  log.reset(zxid);
  // Not taken even when at or below zxid: the leader's history may not hold
  // it (this replica's log diverged); the snapshot's own membership comes
  // with Zab::snapshot_installed.
  next.reset();
}

void ReplicaState::advance_commit(Zxid zxid) {
  const Zxid known = std::min(zxid, log.last());
  committed = std::max(committed, known);
  // `known`, not `committed`: after a restart committed starts at what the
  // host replayed, which is no evidence that a reconfiguration committed.
  if (next && known >= next->zxid) {
    take(std::move(next->members), next->zxid);
    next.reset();
  }
}

namespace {

bool contains(const std::vector<ServerId>& ids, ServerId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

bool majority_of(const std::vector<ServerId>& voters, const std::function<bool(ServerId)>& has) {
  const auto n = std::count_if(voters.begin(), voters.end(), has);
  return static_cast<size_t>(n) >= quorum_size(voters.size());
}

// Ensembles up to this size gather their voters' acks on the stack: the
// leader checks for a quorum on every ack.
constexpr size_t kStackVoters = 16;

Zxid quorum_zxid_in(const std::vector<ServerId>& voters,
                    const std::function<Zxid(ServerId)>& acked) {
  std::array<Zxid, kStackVoters> stack{};
  std::vector<Zxid> heap(voters.size() > stack.size() ? voters.size() : 0);
  const std::span<Zxid> values =
      heap.empty() ? std::span<Zxid>(stack).first(voters.size()) : std::span<Zxid>(heap);
  for (size_t i = 0; i < voters.size(); ++i) values[i] = acked(voters[i]);
  return quorum_zxid(values, voters.size());
}

}  // namespace

bool ReplicaState::is_voter(ServerId id) const {
  return contains(cfg.voters, id) || (next && contains(next->members.voters, id));
}

bool ReplicaState::is_observer(ServerId id) const {
  if (is_voter(id)) return false;
  return contains(cfg.observers, id) || (next && contains(next->members.observers, id));
}

bool ReplicaState::quorum_of(const std::function<bool(ServerId)>& has) const {
  return majority_of(cfg.voters, has) && (!next || majority_of(next->members.voters, has));
}

bool ReplicaState::committed_quorum_of(const std::function<bool(ServerId)>& has) const {
  return majority_of(cfg.voters, has);
}

Zxid ReplicaState::quorum_zxid_of(const std::function<Zxid(ServerId)>& acked) const {
  Zxid z = quorum_zxid_in(cfg.voters, acked);
  if (next) z = std::min(z, quorum_zxid_in(next->members.voters, acked));
  return z;
}

std::vector<ServerId> ReplicaState::all_voters() const {
  std::vector<ServerId> all = cfg.voters;
  if (next) {
    for (ServerId v : next->members.voters) {
      if (!contains(all, v)) all.push_back(v);
    }
  }
  std::sort(all.begin(), all.end());
  return all;
}

void ReplicaState::fail_syncs() {
  for (const LocalSync& s : local_syncs) out.syncs_failed.push_back(s.request_id);
  local_syncs.clear();
  peer_syncs.clear();
}

}  // namespace zkd::zab
