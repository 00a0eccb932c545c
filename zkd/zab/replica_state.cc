// SPDX-License-Identifier: Apache-2.0
#include "zkd/zab/replica_state.h"

#include <algorithm>
#include <utility>

namespace zkd::zab {

ReplicaState::ReplicaState(Config config, HardState hard_state, Zxid base,
                           std::vector<Entry> entries, Zxid boot_applied)
    : cfg(std::move(config)), hard(hard_state), log(base, std::move(entries)) {
  observer = is_observer(cfg.id);
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
  out.entries.push_back(std::move(entry));
  return true;
}

void ReplicaState::advance_commit(Zxid zxid) {
  committed = std::max(committed, std::min(zxid, log.last()));
}

bool ReplicaState::is_voter(ServerId id) const {
  return std::find(cfg.voters.begin(), cfg.voters.end(), id) != cfg.voters.end();
}

bool ReplicaState::is_observer(ServerId id) const {
  return std::find(cfg.observers.begin(), cfg.observers.end(), id) != cfg.observers.end();
}

void ReplicaState::fail_syncs() {
  for (const LocalSync& s : local_syncs) out.syncs_failed.push_back(s.request_id);
  local_syncs.clear();
  peer_syncs.clear();
}

}  // namespace zkd::zab
