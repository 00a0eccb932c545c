// SPDX-License-Identifier: Apache-2.0
#include "zkd/view/metrics.h"

#include <utility>

namespace zkd::server {
namespace {

struct CounterField {
  const char* name;
  uint64_t Metrics::*field;
};
struct SummaryField {
  const char* name;
  Summary Metrics::*field;
  bool advanced;
};
struct SummarySetField {
  const char* name;
  SummarySet Metrics::*field;
};

constexpr CounterField kCounters[] = {
    {"connection_request_count", &Metrics::connection_request_count},
    {"connection_rejected", &Metrics::connection_rejected},
    {"sessionless_connections_expired", &Metrics::sessionless_connections_expired},
    {"unsuccessful_handshake", &Metrics::unsuccessful_handshake},
    {"connection_revalidate_count", &Metrics::connection_revalidate_count},
    {"cnxn_closed_without_zk_server_running", &Metrics::cnxn_closed_without_zk_server_running},
    {"bytes_received_count", &Metrics::bytes_received_count},
    {"response_bytes", &Metrics::response_bytes},
    {"watch_bytes", &Metrics::watch_bytes},
    {"large_requests_rejected", &Metrics::large_requests_rejected},
    {"request_throttle_wait_count", &Metrics::request_throttle_wait_count},
    {"connection_drop_count", &Metrics::connection_drop_count},
    {"insecure_admin_count", &Metrics::insecure_admin_count},
    {"stale_requests", &Metrics::stale_requests},
    {"stale_requests_dropped", &Metrics::stale_requests_dropped},
    {"stale_replies", &Metrics::stale_replies},
    {"stale_sessions_expired", &Metrics::stale_sessions_expired},
    {"revalidate_count", &Metrics::revalidate_count},
    {"prep_processor_request_queued", &Metrics::prep_processor_request_queued},
    {"outstanding_changes_queued", &Metrics::outstanding_changes_queued},
    {"outstanding_changes_removed", &Metrics::outstanding_changes_removed},
    {"sync_processor_request_queued", &Metrics::sync_processor_request_queued},
    {"request_commit_queued", &Metrics::request_commit_queued},
    {"proposal_count", &Metrics::proposal_count},
    {"commit_count", &Metrics::commit_count},
    {"learner_proposal_received_count", &Metrics::learner_proposal_received_count},
    {"learner_commit_received_count", &Metrics::learner_commit_received_count},
    {"diff_count", &Metrics::diff_count},
    {"snap_count", &Metrics::snap_count},
    {"looking_count", &Metrics::looking_count},
};

constexpr SummaryField kSummaries[] = {
    {"connection_token_deficit", &Metrics::connection_token_deficit, false},
    {"readlatency", &Metrics::readlatency, true},
    {"updatelatency", &Metrics::updatelatency, true},
    {"fsynctime", &Metrics::fsynctime, false},
    {"dbinittime", &Metrics::dbinittime, false},
    {"startup_txns_loaded", &Metrics::startup_txns_loaded, false},
    {"startup_txns_load_time", &Metrics::startup_txns_load_time, false},
    {"startup_snap_load_time", &Metrics::startup_snap_load_time, false},
    {"prep_processor_queue_size", &Metrics::prep_processor_queue_size, false},
    {"prep_process_time", &Metrics::prep_process_time, false},
    {"prep_processor_queue_time_ms", &Metrics::prep_processor_queue_time_ms, true},
    {"close_session_prep_time", &Metrics::close_session_prep_time, true},
    {"sync_processor_queue_size", &Metrics::sync_processor_queue_size, false},
    {"sync_processor_batch_size", &Metrics::sync_processor_batch_size, false},
    {"sync_processor_queue_time_ms", &Metrics::sync_processor_queue_time_ms, true},
    {"sync_processor_queue_and_flush_time_ms", &Metrics::sync_processor_queue_and_flush_time_ms,
     true},
    {"sync_processor_queue_flush_time_ms", &Metrics::sync_processor_queue_flush_time_ms, true},
    {"sync_process_time", &Metrics::sync_process_time, false},
    {"commit_process_time", &Metrics::commit_process_time, false},
    {"write_final_proc_time_ms", &Metrics::write_final_proc_time_ms, true},
    {"read_final_proc_time_ms", &Metrics::read_final_proc_time_ms, true},
    {"write_commitproc_time_ms", &Metrics::write_commitproc_time_ms, true},
    {"read_commitproc_time_ms", &Metrics::read_commitproc_time_ms, true},
    {"write_commit_proc_issued", &Metrics::write_commit_proc_issued, false},
    {"read_commit_proc_issued", &Metrics::read_commit_proc_issued, false},
    {"session_queues_drained", &Metrics::session_queues_drained, false},
    {"write_batch_time_in_commit_processor", &Metrics::write_batch_time_in_commit_processor, false},
    {"proposal_process_time", &Metrics::proposal_process_time, false},
    {"requests_in_session_queue", &Metrics::requests_in_session_queue, false},
    {"reads_after_write_in_session_queue", &Metrics::reads_after_write_in_session_queue, false},
    {"pending_session_queue_size", &Metrics::pending_session_queue_size, false},
    {"node_created_watch_count", &Metrics::node_created_watch_count, false},
    {"node_deleted_watch_count", &Metrics::node_deleted_watch_count, false},
    {"node_changed_watch_count", &Metrics::node_changed_watch_count, false},
    {"node_children_watch_count", &Metrics::node_children_watch_count, false},
    {"inflight_snap_count", &Metrics::inflight_snap_count, false},
    {"inflight_diff_count", &Metrics::inflight_diff_count, false},
    {"election_time", &Metrics::election_time, false},
    {"follower_sync_time", &Metrics::follower_sync_time, false},
    {"observer_sync_time", &Metrics::observer_sync_time, false},
    {"unavailable_time", &Metrics::unavailable_time, false},
    {"leader_unavailable_time", &Metrics::leader_unavailable_time, false},
    {"quorum_ack_latency", &Metrics::quorum_ack_latency, true},
    {"proposal_latency", &Metrics::proposal_latency, true},
    {"proposal_ack_creation_latency", &Metrics::proposal_ack_creation_latency, true},
    {"local_write_committed_time_ms", &Metrics::local_write_committed_time_ms, true},
    {"server_write_committed_time_ms", &Metrics::server_write_committed_time_ms, true},
    {"propagation_latency", &Metrics::propagation_latency, true},
    {"commit_propagation_latency", &Metrics::commit_propagation_latency, true},
};

constexpr SummarySetField kSummarySets[] = {
    {"read_per_namespace", &Metrics::read_per_namespace},
    {"write_per_namespace", &Metrics::write_per_namespace},
};

}  // namespace

void reset_metrics(Metrics& m) {
  Metrics fresh;
  fresh.outstanding_tls_handshake = m.outstanding_tls_handshake;
  fresh.non_mtls_remote_conn_count = m.non_mtls_remote_conn_count;
  fresh.non_mtls_local_conn_count = m.non_mtls_local_conn_count;
  fresh.leading_since_ms = m.leading_since_ms;
  m = std::move(fresh);
}

std::string_view top_namespace(std::string_view path) {
  if (path.size() < 2 || path.front() != '/') return {};
  path.remove_prefix(1);
  return path.substr(0, path.find('/'));
}

void append_metrics(const Metrics& m, std::vector<MonitorEntry>& out) {
  for (const auto& c : kCounters) {
    out.push_back({c.name, static_cast<int64_t>(m.*c.field), MetricType::kCounter});
  }
  for (const auto& s : kSummaries) {
    out.push_back({s.name, summary_figures(m.*s.field, s.advanced)});
  }
  for (const auto& set : kSummarySets) {
    for (const auto& [key, summary] : (m.*set.field).summaries()) {
      out.push_back(
          {set.name, summary_figures(summary, /*advanced=*/false), MetricType::kGauge, key});
    }
  }
  out.push_back({"outstanding_tls_handshake", m.outstanding_tls_handshake});
  out.push_back({"non_mtls_remote_conn_count", m.non_mtls_remote_conn_count});
  out.push_back({"non_mtls_local_conn_count", m.non_mtls_local_conn_count});
  out.push_back({"last_client_response_size", m.client_response_size.last});
  out.push_back({"min_client_response_size", m.client_response_size.min});
  out.push_back({"max_client_response_size", m.client_response_size.max});
}

}  // namespace zkd::server
