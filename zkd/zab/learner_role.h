// SPDX-License-Identifier: Apache-2.0
// The learner, follower or observer (internal to zkd/zab): discovery
// (FollowerInfo, then accept the leader's new epoch), synchronisation
// (Trunc / Snap, Diff, NewLeader: take the leader's history, then ack it
// once durable) and broadcast (a follower logs proposals, acks them once
// durable, applies on Commit; an observer logs and applies Informs, and never
// acks them). docs/zab.md has the protocol.
//
// It acts on the ReplicaState while the replica follows or observes
// (start() to reset()); a protocol error or a silent leader sends the replica
// back to election through RoleChanges.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "zkd/zab/message.h"
#include "zkd/zab/ready.h"
#include "zkd/zab/replica_state.h"
#include "zkd/zab/types.h"

namespace zkd::zab {

class LearnerRole {
 public:
  // `state` and `changes` outlive the role. `incarnation` numbers this run's
  // handshakes (Bootstrap::incarnation).
  LearnerRole(ReplicaState& state, RoleChanges& changes, uint32_t incarnation)
      : s_(state), changes_(changes), attempt_(static_cast<uint64_t>(incarnation) << 32) {}

  // The replica learns from s_.leader from now on: a new handshake.
  void start();
  // The replica does not learn (any more).
  void reset();
  // A peer's message (not a vote) while learning.
  void on_message(const Message& m);
  void tick();
  // Acks what became durable: the history taken at NewLeader (with
  // currentEpoch), then proposals (cumulatively; observers ack only NewLeader).
  void send_acks();

  // Broadcast: a write to the leader (Ready::requests there).
  Error forward(std::string payload);
  // Broadcast: this replica's sync, done once the leader's SyncReply is applied here.
  bool sync(uint64_t request_id);
  // Past discovery: the leader's epoch is this replica's acceptedEpoch.
  bool knows_epoch() const { return stage_ != Stage::kDiscovery; }

 private:
  enum class Stage : uint8_t { kDiscovery, kSync, kAwaitUpToDate, kBroadcast };

  void send_follower_info();
  // Observing: Informs, no Proposals, Commits or acks. Else following, as a
  // voter or not (the leader counts the acks of voters only).
  bool observing() const { return s_.role == Role::kObserving; }

  ReplicaState& s_;
  RoleChanges& changes_;
  Stage stage_ = Stage::kDiscovery;
  uint64_t attempt_ = 0;
  int leader_silent_ticks_ = 0;
  bool leader_busy_ = false;  // the leader's last Ping was busy
  int handshake_ticks_ = 0;
  std::optional<Zxid> ack_new_leader_at_;  // send AckNewLeader once durable here
  Zxid acked_ = 0;                         // last Ack sent
};

}  // namespace zkd::zab
