// SPDX-License-Identifier: Apache-2.0
// Static configuration of one Zab replica. Times are in ticks: the host calls
// tick() at a fixed period (Apache's tickTime) and the core never reads a clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "zkd/zab/types.h"

namespace zkd::zab {

struct Config {
  ServerId id = 0;
  // The voting members: only they elect, and only they count toward a quorum
  // (election, discovery, NewLeader, commit, the leader's liveness).
  std::vector<ServerId> voters;
  // Non-voting learners (Apache's observers): they take committed txns from
  // the leader (Inform) and serve clients, never vote and never count toward
  // any quorum. Disjoint from `voters`. `id` is in one of the two, or in
  // neither: a server joining, or one a reconfiguration removed, which
  // follows without a vote until one adds it (docs/zab.md, "Join, then
  // vote").
  std::vector<ServerId> observers{};
  // Which log entries change the membership (a reconfiguration): the new
  // membership such an entry installs, nullopt for any other entry. Pure: the
  // same entry gives the same answer on every replica. Null: none does.
  // docs/zab.md, "Reconfiguration".
  std::function<std::optional<Membership>(const Entry&)> membership_of = nullptr;
  // The zxid of the reconfiguration that made voters/observers the
  // membership (0: the initial one). Replicas tell one another theirs in
  // election, and take a later one they hear of (docs/zab.md).
  Zxid membership_version = 0;

  // Election: after a quorum agrees with our vote, wait this many ticks for a
  // better vote before deciding (Apache's finalizeWait). >= 1.
  int finalize_ticks = 1;
  // Election: re-broadcast our vote every this many ticks while undecided.
  int vote_resend_ticks = 2;
  // Discovery + synchronisation must finish within this many ticks, on the
  // leader and on each learner (Apache's initLimit). >= 1.
  int init_limit = 10;
  // In broadcast, a learner that hears nothing from the leader for this many
  // ticks goes back to election; a leader that hears from fewer than a quorum
  // for this many ticks steps down (Apache's syncLimit). >= 1.
  int sync_limit = 5;
  // When > sync_limit: the silence a learner in broadcast allows a leader
  // whose pings say it is busy (Message::busy), and, in broadcast, a learner
  // that needs a Snap is synced at the leader's next tick, after busy pings
  // went out: a host that builds the Snap's state on its only thread is
  // silent meanwhile. 0 (or <= sync_limit): Snaps are sent at once and no
  // ping is busy.
  int busy_limit = 0;
  // A sync is answered only once a quorum of voters (the leader included)
  // answered a Ping the leader sent after the sync arrived: the leader was
  // still the leader then, so sync and a read after it are linearizable
  // (what Apache's ZOOKEEPER-1675 asks for). Off: the leader answers from its
  // own log, as Apache's does, and a deposed leader that does not know it yet
  // may answer. Every voter must echo Ping rounds (this version and later).
  bool quorum_sync = false;
  // Committed entries kept in memory to bring a learner up to date by DIFF;
  // a learner further behind gets SNAP. >= 1.
  size_t commit_window = 1000;
  // The largest zxid counter the leader may use; when the next proposal would
  // pass it, the leader steps down so that a new epoch starts. Lower it in
  // tests only.
  uint32_t max_counter = kMaxCounter;
};

// Empty if `config` is usable; otherwise what is wrong with it.
std::string validate(const Config& config);

}  // namespace zkd::zab
