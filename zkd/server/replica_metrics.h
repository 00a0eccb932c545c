// SPDX-License-Identifier: Apache-2.0
// What a replica records in Apache's metrics (zkd/view/metrics.h): its
// elections and syncs (looking_count, election_time, follower_sync_time,
// observer_sync_time, unavailable_time, leader_unavailable_time), its
// proposals and commits (proposal_count, commit_count, quorum_ack_latency,
// learner_*_received_count) and the syncs it sends (diff_count, snap_count).
// The replica host calls it where each happens, with the steady time; it
// keeps the start times the durations need. State thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string_view>
#include <utility>

#include "zkd/view/metrics.h"
#include "zkd/zab/message.h"
#include "zkd/zab/ready.h"

namespace zkd::server {

// The time in a txn's header (TxnHeader: clientId, cxid, zxid, time), read
// without decoding the rest; -1 when the bytes are too short.
int64_t txn_time_ms(std::string_view txn_bytes);

class ReplicaMetrics {
 public:
  // Records into `m` from now on (the server's; the host starts with its
  // own); `local` tells whether a session's client is on this server.
  void use(Metrics& m, std::function<bool(int64_t session)> local) {
    m_ = &m;
    local_ = std::move(local);
  }
  Metrics& metrics() { return *m_; }

  // The replica starts, looking for a leader (Apache counts that LOOKING too).
  void started(int64_t steady_ms);
  // The core's status changed from `old` to `now`.
  void status_changed(const zab::Status& old, const zab::Status& now, int64_t steady_ms);
  // A leader proposed `zxid`.
  void proposed(int64_t zxid, int64_t steady_ms);
  // `zxid` is committed here; `leading`: this replica leads.
  void committed(int64_t zxid, bool leading, int64_t steady_ms);
  // A learner appends proposal `zxid` stamped `txn_time_ms` (the leader's
  // wall clock; -1: unknown) to its log at `wall_ms`.
  void proposal_received(int64_t zxid, int64_t txn_time_ms, int64_t wall_ms);
  // A leader prepared a txn from a request in `ms` (Apache's
  // PrepRequestProcessor figures).
  void prepared(int64_t ms, bool close_session);
  // A txn goes to the log (the sync processor's queue).
  void logging() { ++m_->sync_processor_request_queued; }
  // A leader proposed a txn of `bytes`.
  void proposal_size(size_t bytes) { m_->proposal_size.record(static_cast<int64_t>(bytes)); }
  // A learner's log is durable up to `zxid` at `wall_ms`: its acks leave.
  void persisted(int64_t zxid, int64_t wall_ms);
  // The committed txn of `session` (committed() just before) is applied;
  // `leading`: this replica leads (its prepared change is settled).
  void commit_applied(int64_t session, int64_t steady_ms, bool leading);
  // A message this replica sends (a leader's Diff, Trunc or Snap starts a
  // learner's sync); `syncing`: the learners being synced now, this one
  // included (Apache's inflight_snap_count / inflight_diff_count).
  void sending(zab::MsgType type, size_t syncing);
  // A txn stamped `txn_time_ms` (the leader's wall clock) is applied here at
  // `wall_ms`; `leading`: this replica leads.
  void applied(int64_t txn_time_ms, int64_t wall_ms, bool leading);

 private:
  Metrics own_;
  Metrics* m_ = &own_;
  int64_t looking_since_ = -1;                         // steady ms; -1: not looking
  int64_t unavailable_since_ = -1;                     // not serving since; -1: serving
  int64_t syncing_since_ = -1;                         // election over, not yet serving
  std::deque<std::pair<int64_t, int64_t>> proposals_;  // leader: zxid, when proposed
  std::deque<std::pair<int64_t, int64_t>> unacked_;    // learner: zxid, txn time
  std::function<bool(int64_t)> local_;
  int64_t committed_ms_ = 0;  // when the txn being applied was committed
};

}  // namespace zkd::server
