// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/replica_metrics.h"

#include "libzk/wire/jute.h"

namespace zkd::server {

int64_t txn_time_ms(std::string_view txn_bytes) {
  zk::wire::Reader r(txn_bytes);
  r.int64();  // clientId
  r.int32();  // cxid
  r.int64();  // zxid
  const int64_t time = r.int64();
  return r.ok() ? time : -1;
}

void ReplicaMetrics::started(int64_t steady_ms) {
  ++m_->looking_count;
  looking_since_ = steady_ms;
  unavailable_since_ = steady_ms;
}

void ReplicaMetrics::status_changed(const zab::Status& old, const zab::Status& now,
                                    int64_t steady_ms) {
  const bool looking = now.role == zab::Role::kLooking;
  if (looking && old.role != zab::Role::kLooking) {
    ++m_->looking_count;
    looking_since_ = steady_ms;
  }
  if (old.serving && !now.serving) unavailable_since_ = steady_ms;
  if (!looking && looking_since_ >= 0) {
    // Apache's election_time: from LOOKING to a decided role.
    m_->election_time.record(steady_ms - looking_since_);
    looking_since_ = -1;
    syncing_since_ = steady_ms;
  }
  if (!old.serving && now.serving) {
    if (syncing_since_ >= 0 && now.role == zab::Role::kFollowing) {
      m_->follower_sync_time.record(steady_ms - syncing_since_);
    } else if (syncing_since_ >= 0 && now.role == zab::Role::kObserving) {
      m_->observer_sync_time.record(steady_ms - syncing_since_);
    }
    syncing_since_ = -1;
    if (unavailable_since_ >= 0) {
      m_->unavailable_time.record(steady_ms - unavailable_since_);
      if (now.role == zab::Role::kLeading) {
        m_->leader_unavailable_time.record(steady_ms - unavailable_since_);
      }
      unavailable_since_ = -1;
    }
  }
  // A proposal still waiting when leadership ends is never acked here.
  if (now.role != zab::Role::kLeading) proposals_.clear();
  if (now.role == zab::Role::kLooking) unacked_.clear();
  const bool leads = now.role == zab::Role::kLeading && now.serving;
  if (leads && m_->leading_since_ms < 0) m_->leading_since_ms = steady_ms;
  if (!leads) m_->leading_since_ms = -1;
}

void ReplicaMetrics::proposed(int64_t zxid, int64_t steady_ms) {
  ++m_->proposal_count;
  proposals_.emplace_back(zxid, steady_ms);
}

void ReplicaMetrics::committed(int64_t zxid, bool leading, int64_t steady_ms) {
  committed_ms_ = steady_ms;
  if (!leading) {
    ++m_->learner_commit_received_count;
    return;
  }
  ++m_->commit_count;
  // Commits come in zxid order: what was proposed up to `zxid` has its quorum.
  while (!proposals_.empty() && proposals_.front().first <= zxid) {
    if (proposals_.front().first == zxid) {
      m_->quorum_ack_latency.record(steady_ms - proposals_.front().second);
    }
    proposals_.pop_front();
  }
}

void ReplicaMetrics::persisted(int64_t zxid, int64_t wall_ms) {
  while (!unacked_.empty() && unacked_.front().first <= zxid) {
    const int64_t time = unacked_.front().second;
    if (time >= 0 && wall_ms >= time) m_->proposal_ack_creation_latency.record(wall_ms - time);
    unacked_.pop_front();
  }
}

void ReplicaMetrics::commit_applied(int64_t session, int64_t steady_ms, bool leading) {
  const bool local = local_ && local_(session);
  (local ? m_->local_write_committed_time_ms : m_->server_write_committed_time_ms)
      .record(steady_ms - committed_ms_);
  m_->commit_process_time.record(steady_ms - committed_ms_);
  if (leading) ++m_->outstanding_changes_removed;
}

void ReplicaMetrics::prepared(int64_t ms, bool close_session) {
  ++m_->prep_processor_request_queued;
  ++m_->outstanding_changes_queued;
  m_->prep_process_time.record(ms);
  if (close_session) m_->close_session_prep_time.record(ms);
}

void ReplicaMetrics::proposal_received(int64_t zxid, int64_t txn_time_ms, int64_t wall_ms) {
  ++m_->learner_proposal_received_count;
  unacked_.emplace_back(zxid, txn_time_ms);
  if (txn_time_ms >= 0 && wall_ms >= txn_time_ms)
    m_->proposal_latency.record(wall_ms - txn_time_ms);
}

void ReplicaMetrics::sending(zab::MsgType type, size_t syncing) {
  if (type == zab::MsgType::kSnap) {
    ++m_->snap_count;
    m_->inflight_snap_count.record(static_cast<int64_t>(syncing));
  }
  if (type == zab::MsgType::kDiff || type == zab::MsgType::kTrunc) {
    ++m_->diff_count;
    m_->inflight_diff_count.record(static_cast<int64_t>(syncing));
  }
}

void ReplicaMetrics::applied(int64_t txn_time_ms, int64_t wall_ms, bool leading) {
  const int64_t latency = wall_ms - txn_time_ms;
  if (latency < 0) return;  // clocks apart: no figure, as Apache skips it
  m_->propagation_latency.record(latency);
  if (!leading) m_->commit_propagation_latency.record(latency);
}

}  // namespace zkd::server
