// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/write_path.h"

#include <algorithm>
#include <utility>

#include "zkd/log/log.h"
#include "zkd/server/request_metrics.h"

namespace zkd::server {

using net::hex;
using net::log_info;

WritePath::WritePath(tree::Database& db, ClientRegistry& clients, SnapshotService& snapshots,
                     ServerStats& stats, RequestHandler& handler, Limits limits,
                     storage::Clock& clock, AuditTrail& audit)
    : db_(db),
      clients_(clients),
      snapshots_(snapshots),
      stats_(stats),
      clock_(clock),
      audit_(audit),
      handler_(handler) {
  // Apache throttles on the requests in its processor pipeline; in zkd those
  // are the writes waiting to be committed and the requests queued behind
  // them. Only connections with such requests wait (held: every one).
  const size_t limit = static_cast<size_t>(
      limits.request_throttle > 0 ? std::min(limits.outstanding, limits.request_throttle)
                                  : limits.outstanding);
  read_gate_ = std::make_shared<net::ReadGate>(
      [this, limit] { return held_ || in_process() >= limit; },
      [this](net::ConnectionId id) { return !held_ && !pipeline_.busy(id); });
}

void WritePath::hold(bool held) {
  held_ = held;
  if (!held) read_gate_->recheck();
}

Status WritePath::restart_at(int64_t zxid) {
  if (Status s = log_->clear(); !s.ok()) return s;
  last_prepared_zxid_ = zxid;
  durable_zxid_ = zxid;
  return {};
}

void WritePath::open(std::unique_ptr<ServerLog> log, int64_t last_zxid) {
  log_ = std::move(log);
  last_prepared_zxid_ = last_zxid;
  durable_zxid_ = last_zxid;
}

void WritePath::stop() {
  if (log_) log_->stop();
}

void WritePath::submit(net::ConnectionId connection, PendingWrite write,
                       const WriteRequest& request) {
  Metrics& m = stats_.metrics;
  if (request.kind == WriteRequest::Kind::kOp) record_write(m, request.op, request.body);
  // One clock read: the write is prepared (or handed to the leader) now.
  const int64_t started_ms = clock_.steady_ms();
  write.prepared_ms = started_ms;
  if (host_ != nullptr) {
    replicate_write(connection, std::move(write), request);
    return;
  }
  // Apache's PrepRequestProcessor: how long the request waited to be
  // prepared (behind its connection's earlier requests), and preparing it.
  ++m.prep_processor_request_queued;
  m.prep_processor_queue_size.record(static_cast<int64_t>(pipeline_.deferred()));
  if (connection != Pipeline::kNoConnection) {
    m.prep_processor_queue_time_ms.record(started_ms - write.started_ms);
  }
  write.txn = prepare_write(db_, request, ++last_prepared_zxid_, clock_.wall_ms());
  const int64_t prepared_ms = clock_.steady_ms() - started_ms;
  m.prep_process_time.record(prepared_ms);
  if (request.kind == WriteRequest::Kind::kCloseSession) {
    m.close_session_prep_time.record(prepared_ms);
  }
  std::string bytes = encode_prepared_txn(write.txn, request);
  append(connection, std::move(write), std::move(bytes));
}

void WritePath::append(net::ConnectionId connection, PendingWrite write, std::string bytes) {
  const int64_t zxid = write.txn.header.zxid;
  log_->append(zxid, std::move(bytes));
  ++stats_.metrics.sync_processor_request_queued;
  ++stats_.metrics.outstanding_changes_queued;
  pipeline_.add_write(connection, zxid, std::move(write));
  snapshots_.logged(last_prepared_zxid_);
}

void WritePath::revalidate(int64_t session, int32_t timeout_ms) {
  if (host_ == nullptr) return;
  WriteRequest request;
  request.kind = WriteRequest::Kind::kRevalidate;
  request.session = session;
  request.timeout_ms = timeout_ms;
  host_->write(request);
}

bool WritePath::sync(ClientState& client, std::string_view payload, int64_t started_ms) {
  const net::ConnectionId id = client.connection->id();
  if (host_ == nullptr) {
    // Answered once every txn prepared before it (any session) is applied.
    return pipeline_.add_barrier(id, PendingRequest{std::string(payload), started_ms}).has_value();
  }
  // Answered once this replica applied what the leader had when it saw it.
  const uint64_t ticket = forwarded_.add_sync();
  PendingWrite write;
  write.kind = PendingWrite::Kind::kSync;
  write.op = zk::wire::OpCode::kSync;
  write.payload = std::string(payload);
  write.started_ms = started_ms;
  pipeline_.add_write(id, static_cast<int64_t>(ticket), std::move(write));
  host_->sync(ticket);
  return false;
}

void WritePath::record_batch(const LogBatch& batch) {
  Metrics& m = stats_.metrics;
  m.fsynctime.record(batch.sync_us / 1000);
  m.sync_processor_batch_size.record(static_cast<int64_t>(batch.txns));
  m.sync_processor_queue_flush_time_ms.record((batch.write_us + batch.sync_us) / 1000);
  for (const TxnTiming& t : batch.timings) {
    m.sync_processor_queue_size.record(t.queue_size);
    m.sync_processor_queue_time_ms.record(t.queue_us / 1000);
    m.sync_process_time.record(t.write_us / 1000);
    m.sync_processor_queue_and_flush_time_ms.record(t.durable_us / 1000);
  }
}

Status WritePath::logged(const LogBatch& batch) {
  // Posted before a truncation this thread has since made: stale.
  if (batch.status.ok() && batch.truncations < log_->truncations_requested()) return {};
  if (!batch.status.ok()) return batch.status;
  record_batch(batch);
  durable_zxid_ = batch.durable_zxid;
  if (host_ != nullptr) {
    host_->persisted(durable_zxid_);  // drains once settled
    return {};
  }
  drain();
  return {};
}

void WritePath::drain() {
  // Standalone: writes are released by zxid once durable; in an ensemble by
  // ticket once committed and applied.
  auto released = [this] {
    return host_ != nullptr ? static_cast<int64_t>(forwarded_.released()) : durable_zxid_;
  };
  // Apache's CommitProcessor figures of one batch: what this drain released.
  const int64_t batch_started_ms = clock_.steady_ms();
  int64_t writes = 0, requests = 0, queues_drained = 0;
  while (auto step = pipeline_.next(released())) {
    switch (step->kind) {
      case Pipeline::Step::Kind::kWrite: {
        ++writes;
        queues_drained += step->queue_emptied ? 1 : 0;
        // Apache's CommitProcessor: from the write's prepare to its commit.
        const int64_t released_ms = clock_.steady_ms();
        stats_.metrics.write_commitproc_time_ms.record(released_ms - step->write->prepared_ms);
        if (step->connection != Pipeline::kNoConnection) {
          // Apache's CommitProcessor's session queues are zkd's per-connection order.
          stats_.metrics.requests_in_session_queue.record(
              static_cast<int64_t>(step->session_queue));
          stats_.metrics.reads_after_write_in_session_queue.record(
              static_cast<int64_t>(step->released));
          stats_.metrics.pending_session_queue_size.record(
              static_cast<int64_t>(step->pending_sessions));
        }
        if (host_ != nullptr) {
          finish_replicated(step->connection, static_cast<uint64_t>(step->zxid), *step->write);
          break;
        }
        // Apache's FinalRequestProcessor: applying (commit_process_time),
        // then applying and answering (write_final_proc_time_ms).
        // propagation_latency: from the txn's making (its time) to its apply.
        tree::ApplyResult result = db_.apply(step->write->txn);
        audit_.applied(step->write->txn, result);
        const int64_t applied_ms = clock_.steady_ms();
        stats_.metrics.commit_process_time.record(applied_ms - released_ms);
        stats_.metrics.propagation_latency.record(applied_ms - step->write->prepared_ms);
        ++stats_.metrics.outstanding_changes_removed;
        // Notifications first: on the writer's own connection they precede its reply.
        clients_.deliver_fired(result.notifications, step->write->txn.header.zxid);
        finish(step->connection, *step->write, result.response);
        stats_.metrics.write_final_proc_time_ms.record(clock_.steady_ms() - released_ms);
        break;
      }
      case Pipeline::Step::Kind::kBarrier:
      case Pipeline::Step::Kind::kRequest: {
        ++requests;
        ClientState* client = clients_.find(step->connection);
        if (client == nullptr || client->phase != ClientState::Phase::kEstablished) {
          // Its connection closed while it waited: dropped unanswered.
          ++stats_.metrics.stale_requests;
          ++stats_.metrics.stale_requests_dropped;
          break;
        }
        handler_.handle(
            *client, step->read->payload,
            step->kind == Pipeline::Step::Kind::kBarrier ? Arrival::kReleased : Arrival::kInTurn,
            step->read->started_ms);
        break;
      }
    }
  }
  if (writes > 0) {
    Metrics& m = stats_.metrics;
    m.request_commit_queued += static_cast<uint64_t>(writes);
    m.write_commit_proc_issued.record(writes);
    m.read_commit_proc_issued.record(requests);
    m.session_queues_drained.record(queues_drained);
    m.write_batch_time_in_commit_processor.record(clock_.steady_ms() - batch_started_ms);
  }
  // Writes of connections that have gone finish without a reply, so no send
  // re-checks globalOutstandingLimit's gate for them: do it once per drain.
  read_gate_->recheck();
}

void WritePath::drop() {
  pipeline_.clear();
  forwarded_.clear();
}

void WritePath::replicate_write(net::ConnectionId connection, PendingWrite write,
                                const WriteRequest& request) {
  if (!host_->status().serving) {
    // The quorum was lost meanwhile; the client's connection is closing.
    if (ClientState* client = clients_.find(connection)) client->connection->close();
    return;
  }
  if (connection != Pipeline::kNoConnection) {
    // Not the leader's own txns (session expiry), which nobody waits for.
    const uint64_t ticket = forwarded_.add_write(request);
    pipeline_.add_write(connection, static_cast<int64_t>(ticket), std::move(write));
  }
  host_->write(request);
}

void WritePath::finish_replicated(net::ConnectionId connection, uint64_t ticket,
                                  PendingWrite& write) {
  if (write.kind == PendingWrite::Kind::kSync) {
    finish(connection, write, tree::Response{});
    return;
  }
  auto outcome = forwarded_.take(ticket);
  if (!outcome) {
    // Lost (not committed before the leader changed): the client retries.
    if (ClientState* client = clients_.find(connection)) ClientRegistry::close(*client);
    return;
  }
  write.txn = std::move(outcome->first);
  finish(connection, write, outcome->second);
}

void WritePath::finish(net::ConnectionId connection, PendingWrite& write,
                       const tree::Response& response) {
  ClientState* client = clients_.find(connection);
  const int64_t zxid = write.txn.header.zxid;
  switch (write.kind) {
    case PendingWrite::Kind::kReply:
      // Audited whether or not the client is still there to hear the answer.
      if (write.audit) {
        audit_.answered(*write.audit, write.op, write.txn, write.err.value_or(response.err));
      }
      if (client == nullptr) {
        ++stats_.metrics.stale_replies;
        return;
      }
      clients_.reply(*client, write.xid, zxid, write.err.value_or(response.err), response.body,
                     write.op, write.started_ms);
      return;
    case PendingWrite::Kind::kCreateSession:
      handler_.session_created(client, write);
      return;
    case PendingWrite::Kind::kCloseSession:
      if (client == nullptr) {
        ++stats_.metrics.stale_replies;
        return;
      }
      clients_.reply(*client, write.xid, zxid, zk::wire::Error::kOk, {},
                     zk::wire::OpCode::kCloseSession, write.started_ms);
      log_info("session ", hex(write.txn.header.session_id), " closed by ",
               client->connection->remote_text());
      client->connection->close_after_flush();
      return;
    case PendingWrite::Kind::kExpiry:
      return;
    case PendingWrite::Kind::kSync:
      if (client == nullptr || client->phase != ClientState::Phase::kEstablished) return;
      handler_.handle(*client, write.payload, Arrival::kReleased, write.started_ms);
      return;
  }
}

}  // namespace zkd::server
