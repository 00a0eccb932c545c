// SPDX-License-Identifier: Apache-2.0
// The observers' message rules, checked on every message sent by the
// transcript harness (tests/zab) and the simulator (tests/sim): observers
// never vote for themselves, never ack, propose, commit, inform or lead; the
// leader sends them Inform and never Proposal or Commit, and sends voters no
// Inform. A server of neither kind (removed by a reconfiguration) may get
// either, and so may any server the Commit or Inform of the entry that made
// the membership in force.
#pragma once

#include <algorithm>
#include <string>

#include "zkd/zab/config.h"
#include "zkd/zab/message.h"
#include "zkd/zab/zab.h"

namespace zkd::zab::test {

inline bool is_observer(const Config& config, ServerId id) {
  return std::find(config.observers.begin(), config.observers.end(), id) != config.observers.end();
}
inline bool is_voter(const Config& config, ServerId id) {
  return std::find(config.voters.begin(), config.voters.end(), id) != config.voters.end();
}

// The membership `core` acts on: its committed one with a pending
// reconfiguration's voters (a voter of either is a voter). A pending
// membership's observers are not observers yet: one the committed
// membership does not name follows without a vote until the change commits.
inline Config membership_view(const Zab& core) {
  Config view = core.config();
  if (const auto& next = core.next_membership()) {
    for (ServerId v : next->members.voters) {
      if (std::find(view.voters.begin(), view.voters.end(), v) == view.voters.end()) {
        view.voters.push_back(v);
      }
    }
  }
  std::erase_if(view.observers, [&](ServerId o) {
    return std::find(view.voters.begin(), view.voters.end(), o) != view.voters.end();
  });
  return view;
}

// Empty if `m`, sent by `from`, keeps the rules; otherwise the broken rule.
// `handing_over`: `from` is a leader that a reconfiguration made an observer,
// handing leadership over; until then it leads (commits what it proposed).
inline std::string broken_observer_rule(const Config& config, ServerId from, const Message& m,
                                        bool handing_over = false) {
  // The entry that changed the membership is committed to the followers of
  // the old one and informed to its observers, whatever part it gave them
  // (the leader's own included): that is how a server whose part changed,
  // or that was removed, learns it.
  const Zxid up_to =
      m.type == MsgType::kInform && !m.entries.empty() ? m.entries.back().zxid : m.zxid;
  if ((m.type == MsgType::kCommit || m.type == MsgType::kInform) &&
      config.membership_version != 0 && up_to == config.membership_version) {
    return {};
  }
  if (is_observer(config, from) && !handing_over) {
    if (m.type == MsgType::kVote && m.vote.leader == from) return "observer votes for itself";
    if (m.type == MsgType::kAck || m.type == MsgType::kProposal || m.type == MsgType::kCommit ||
        m.type == MsgType::kInform || m.type == MsgType::kLeaderInfo) {
      return "observer sends " + describe(m);
    }
  }
  const bool to_observer = is_observer(config, m.to);
  if (to_observer && (m.type == MsgType::kProposal || m.type == MsgType::kCommit)) {
    return describe(m) + " to observer " + std::to_string(m.to);
  }
  if (is_voter(config, m.to) && m.type == MsgType::kInform) {
    return describe(m) + " to voter " + std::to_string(m.to);
  }
  return {};
}

}  // namespace zkd::zab::test
