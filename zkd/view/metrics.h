// SPDX-License-Identifier: Apache-2.0
// Apache ZooKeeper 3.8's ServerMetrics that zkd measures, each named as
// Apache names it (docs/metrics.md says what each measures in zkd, and why
// the others have no meaning here). The parts of the server add to them
// where the event happens: plain integer additions and Summary::record, no
// lock, no allocation (a summary set allocates once per new key). Every
// part that records runs on the state thread; the log thread's figures come
// to it in its LogBatch reports.
//
// append_metrics() lists them for the monitor (mntr, the admin server's
// monitor, /metrics), with Apache's types: the one list of their names.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "zkd/view/four_letter_format.h"
#include "zkd/view/summary.h"

namespace zkd::server {

// Apache's SummarySet: one summary per key (the top-level znode, for the
// *_per_namespace sets).
class SummarySet {
 public:
  void record(std::string_view key, int64_t value) {
    auto it = summaries_.find(key);
    if (it == summaries_.end()) it = summaries_.emplace(std::string(key), Summary{}).first;
    it->second.record(value);
  }
  const std::map<std::string, Summary, std::less<>>& summaries() const { return summaries_; }
  void reset() { summaries_.clear(); }

 private:
  std::map<std::string, Summary, std::less<>> summaries_;
};

// Apache's BufferStats of the replies' sizes (last_, min_,
// max_client_response_size): -1 until the first reply.
struct BufferSizes {
  int64_t last = -1;
  int64_t min = -1;
  int64_t max = -1;
  void record(int64_t size) {
    last = size;
    if (min < 0 || size < min) min = size;
    if (size > max) max = size;
  }
};

struct Metrics {
  // -- counters (Prometheus counters) --
  // Clients' connections and bytes.
  uint64_t connection_request_count = 0;  // client connections accepted
  uint64_t connection_rejected = 0;       // refused at accept: maxClientCnxns from one address
  uint64_t sessionless_connections_expired = 0;  // closed for making no session in time
  uint64_t unsuccessful_handshake = 0;           // ConnectRequests refused (bad, expired or ahead)
  uint64_t connection_revalidate_count = 0;      // sessions resumed on a new connection
  uint64_t cnxn_closed_without_zk_server_running = 0;  // closed: this replica not serving
  uint64_t bytes_received_count = 0;         // request bytes read from clients (frames with length)
  uint64_t response_bytes = 0;               // reply bytes sent to clients
  uint64_t watch_bytes = 0;                  // notification bytes sent to clients
  uint64_t large_requests_rejected = 0;      // connections closed: largeRequestMaxBytes
  uint64_t request_throttle_wait_count = 0;  // times a connection stopped reading at the gate
  uint64_t connection_drop_count = 0;        // connections the client closed (a read failed)
  uint64_t insecure_admin_count = 0;    // plain-HTTP connections to an admin port that takes TLS
  uint64_t stale_requests = 0;          // requests taken up after their connection closed
  uint64_t stale_requests_dropped = 0;  // of those, dropped unanswered
  uint64_t stale_replies = 0;           // replies not sent: their connection had closed
  // Sessions.
  uint64_t stale_sessions_expired = 0;  // sessions expired by their timeout
  uint64_t revalidate_count = 0;        // a leader: sessions revalidated for a learner
  // The write path.
  uint64_t prep_processor_request_queued = 0;  // requests that entered prepare (txns)
  uint64_t outstanding_changes_queued = 0;     // txns prepared, not yet applied
  uint64_t outstanding_changes_removed = 0;    // of those, applied
  uint64_t sync_processor_request_queued = 0;
  uint64_t request_commit_queued =
      0;  // writes released to be applied and answered  // txns handed to the log thread
  // The ensemble.
  uint64_t proposal_count = 0;                   // a leader: proposals sent
  uint64_t commit_count = 0;                     // a leader: commits sent
  uint64_t learner_proposal_received_count = 0;  // a learner: proposals received
  uint64_t learner_commit_received_count = 0;    // a learner: commits received
  uint64_t diff_count = 0;                       // a leader: learners synced by DIFF (or TRUNC)
  uint64_t snap_count = 0;                       // a leader: learners synced by SNAP
  uint64_t looking_count = 0;                    // times this replica went looking for a leader

  // -- summaries; (A): Apache's DetailLevel.ADVANCED, with p50..p999 --
  Summary connection_token_deficit;      // tokens used of the throttle's bucket, at each pass
  Summary readlatency;                   // (A) ms from a read's arrival to its reply
  Summary updatelatency;                 // (A) ms from a write's arrival to its reply
  Summary fsynctime;                     // ms of each fsync of the txn log
  Summary dbinittime;                    // ms loading the snapshot and the log at start
  Summary startup_txns_loaded;           // log txns replayed at start
  Summary startup_txns_load_time;        // ms replaying them
  Summary startup_snap_load_time;        // ms loading the snapshot at start
  Summary prep_processor_queue_size;     // requests waiting behind others, at each prepare
  Summary prep_process_time;             // ms preparing a txn from its request
  Summary prep_processor_queue_time_ms;  // (A) ms from a write's arrival to its prepare
  Summary close_session_prep_time;       // (A) ms preparing a closeSession txn
  Summary sync_processor_queue_size;     // txns waiting for the log thread, at each append
  Summary sync_processor_batch_size;     // txns made durable by one fsync
  Summary sync_processor_queue_time_ms;  // (A) ms a txn waited before the log thread took it
  Summary sync_processor_queue_and_flush_time_ms;  // (A) ms from queueing to durable
  Summary sync_processor_queue_flush_time_ms;      // (A) ms of each batch's flush
  Summary sync_process_time;                       // ms writing a txn into the log
  Summary commit_process_time;                     // ms applying a committed txn to the tree
  Summary write_final_proc_time_ms;                // (A) ms applying a write and answering it
  Summary write_commitproc_time_ms;                // (A) ms a prepared write waited for its commit
  Summary read_commitproc_time_ms;               // (A) ms a read waited behind its session's writes
  Summary read_final_proc_time_ms;               // (A) ms answering a read
  Summary write_commit_proc_issued;              // writes released by one batch (a drain)
  Summary read_commit_proc_issued;               // requests released behind them by that batch
  Summary session_queues_drained;                // connections whose queue that batch emptied
  Summary write_batch_time_in_commit_processor;  // ms of that batch
  Summary proposal_process_time;                 // a leader: ms proposing a prepared txn
  Summary requests_in_session_queue;             // requests queued behind a write, at its commit
  Summary reads_after_write_in_session_queue;    // of those, released by the commit
  Summary pending_session_queue_size;            // connections with queued requests, at each commit
  Summary node_created_watch_count;              // watches fired by one NodeCreated
  Summary node_deleted_watch_count;              // ... NodeDeleted
  Summary node_changed_watch_count;              // ... NodeDataChanged
  Summary node_children_watch_count;             // ... NodeChildrenChanged
  Summary inflight_snap_count;      // a leader: learners being synced, at each SNAP sync's start
  Summary inflight_diff_count;      // ... at each DIFF (or TRUNC) sync's start
  Summary election_time;            // ms from looking to following or leading
  Summary follower_sync_time;       // ms a follower took to sync with its leader
  Summary observer_sync_time;       // ms an observer took to sync with its leader
  Summary unavailable_time;         // ms from looking to serving again
  Summary leader_unavailable_time;  // of those, the ones that ended leading
  Summary quorum_ack_latency;       // (A) ms from proposal to a quorum's acks
  Summary proposal_ack_creation_latency;   // (A) a learner: ms from the txn's time to its ack
  Summary local_write_committed_time_ms;   // (A) ms from commit to apply, writes of this server
  Summary server_write_committed_time_ms;  // (A) ... writes of other servers' clients
  Summary proposal_latency;                // (A) a learner: ms from the txn's time to its proposal
  Summary propagation_latency;             // (A) ms from the txn's time to its apply here
  Summary commit_propagation_latency;      // (A) a learner: ms from the txn's time to its commit
  SummarySet read_per_namespace;           // bytes each read returned, by top-level znode
  SummarySet write_per_namespace;          // bytes each write carried, by top-level znode

  // -- gauges --
  BufferSizes proposal_size;      // a leader: last_, min_, max_proposal_size (printed when leading)
  int64_t leading_since_ms = -1;  // steady ms this replica leads and serves since; -1: not
  int64_t outstanding_tls_handshake = 0;   // TLS handshakes under way
  int64_t non_mtls_remote_conn_count = 0;  // plaintext connections from other hosts
  int64_t non_mtls_local_conn_count = 0;   // plaintext connections from loopback
  BufferSizes client_response_size;        // last_, min_, max_client_response_size
};

// srst: Apache's ServerMetrics.resetAll() and its reply sizes; the gauges
// of what is under way or counted by ServerStats (TLS handshakes, plaintext
// connections, leading since) stay.
void reset_metrics(Metrics& m);

// The top-level znode of `path` ("/a/b" -> "a"; "/" -> ""), the key of the
// *_per_namespace sets, as Apache's DataTree takes it.
std::string_view top_namespace(std::string_view path);

// Appends every figure of `m` to `out`, as the monitor prints them.
void append_metrics(const Metrics& m, std::vector<MonitorEntry>& out);

}  // namespace zkd::server
