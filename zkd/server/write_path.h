// SPDX-License-Identifier: Apache-2.0
// The way of a write, from a client's request to its answer (docs/design.md,
// "The way of a write").
//
// Standalone, a write is prepared here (zxid = last prepared + 1, time = this
// machine's wall clock), its txn handed to the log thread (group commit) and
// parked in the ReplyPipeline. When the log thread reports "durable up to N",
// drain() applies the parked txns <= N in order, sends their notifications,
// then their answers, then hands the requests that waited behind them back
// to the RequestHandler. Nothing is applied, so nothing is visible, before it
// is on disk.
//
// In an ensemble (replicate()), a write goes to the replica host instead,
// which proposes it or forwards it to the leader, under a ticket
// (ForwardedWrites); the pipeline orders by ticket, and a write is answered
// once this replica applied the committed txn it became. A sync waits until
// this replica applied what the leader had when it saw the sync.
//
// Threading: the state thread; the log thread's reports reach logged() by
// way of the io_context.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "zkd/net/client_connection.h"
#include "zkd/server/audit_trail.h"
#include "zkd/server/client_registry.h"
#include "zkd/server/client_state.h"
#include "zkd/server/forwarded_writes.h"
#include "zkd/server/pending_write.h"
#include "zkd/server/replica_host.h"
#include "zkd/server/server_log.h"
#include "zkd/server/server_stats.h"
#include "zkd/server/snapshot_service.h"
#include "zkd/server/write_request.h"
#include "zkd/status/status.h"
#include "zkd/storage/clock.h"
#include "zkd/tree/database.h"

namespace zkd::server {

// Where the write path hands back what it released (ClientService).
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // A request of an established `client`, released in turn (Arrival::kInTurn)
  // or a sync whose barrier has passed (Arrival::kReleased).
  virtual void handle(ClientState& client, std::string_view payload, Arrival arrival,
                      int64_t started_ms) = 0;
  // The createSession txn of `write` is applied: finish the handshake of
  // `client` (null when the connection has gone).
  virtual void session_created(ClientState* client, const PendingWrite& write) = 0;
};

class WritePath {
 public:
  // The requests in process (in_process()) at which connections that have
  // some stop being read (net::ReadGate): globalOutstandingLimit, and
  // requestThrottleLimit when it is not 0; the lower counts.
  struct Limits {
    int32_t outstanding = 1000;
    int32_t request_throttle = 0;
  };
  // Every argument outlives the write path. `handler` may be constructed
  // after it: it is first called by drain(). `clock`'s wall time is each
  // txn's time. `audit` hears of each write answered and each txn applied
  // (audit_trail.h).
  WritePath(tree::Database& db, ClientRegistry& clients, SnapshotService& snapshots,
            ServerStats& stats, RequestHandler& handler, Limits limits, storage::Clock& clock,
            AuditTrail& audit);
  WritePath(const WritePath&) = delete;
  WritePath& operator=(const WritePath&) = delete;

  // Writes go to `log` from now on; the log is durable up to `last_zxid`.
  void open(std::unique_ptr<ServerLog> log, int64_t last_zxid);
  // From now on writes go through the ensemble's replica `host`, which
  // outlives the write path's use of it (until stop()).
  void replicate(ReplicaHost& host) { host_ = &host; }
  // Makes what was handed to the log durable and ends the log thread; what
  // is pending is neither applied nor answered any more.
  void stop();

  // Precondition: open().
  ServerLog& log() { return *log_; }
  // The replica host, or null when standalone.
  const ReplicaHost* host() const { return host_; }
  // The reply order; ClientService defers and queries through it.
  Pipeline& pipeline() { return pipeline_; }
  // Standalone: the last zxid handed to the log.
  int64_t last_prepared_zxid() const { return last_prepared_zxid_; }
  // Writes waiting for the disk or the leader (mntr's zk_outstanding_requests).
  size_t pending() const { return pipeline_.writes_pending(); }
  // Requests in process: the pending writes and the requests queued behind them.
  size_t in_process() const { return pending() + pipeline_.deferred(); }
  // The read gate of client connections: closed, for the connections with
  // requests in process, while in_process() reaches the limit (Limits);
  // closed for every connection while held.
  std::shared_ptr<net::ReadGate> read_gate() const { return read_gate_; }
  // Holds the read gate closed (true) or lets it follow the limit again
  // (false): an online restore (online_backup.h) waits behind it for the
  // writes in flight.
  void hold(bool held);
  // Standalone, with nothing pending: the log emptied, durably (its files
  // go), and the next txn numbered after `zxid`.
  Status restart_at(int64_t zxid);

  // A write on its way (a client's, or the server's own with
  // Pipeline::kNoConnection); `write` parks what finishes it.
  void submit(net::ConnectionId connection, PendingWrite write, const WriteRequest& request);
  // In an ensemble: a client resumed `session` here; the leader hears of it
  // (WriteRequest::Kind::kRevalidate). Standalone: nothing.
  void revalidate(int64_t session, int32_t timeout_ms);
  // A sync of `client`: true when it can be answered now; otherwise it is
  // handed back to the RequestHandler (Arrival::kReleased) once every write
  // before it (standalone: prepared here; ensemble: the leader's) is applied.
  bool sync(ClientState& client, std::string_view payload, int64_t started_ms);
  // The log thread's report. Not ok: the log failed; nothing more is done.
  Status logged(const LogBatch& batch);
  // Applies and answers whatever is released, in order.
  void drain();

  // --- the ensemble's (replication.h) ---
  // A committed txn this replica applied: kept when it answers one of ours.
  void applied(tree::Txn& txn, tree::ApplyResult& result) {
    audit_.applied(txn, result);
    forwarded_.applied(txn, result.response);
  }
  void sync_done(uint64_t ticket) { forwarded_.sync_done(ticket); }
  // Forgets every write in flight (their clients' connections are closing).
  void drop();

 private:
  // The log thread's figures of one batch, into Apache's fsynctime and
  // sync_processor_* metrics.
  void record_batch(const LogBatch& batch);
  // Standalone: hands the prepared txn (`bytes`, its encoding) to the log
  // and parks `write`.
  void append(net::ConnectionId connection, PendingWrite write, std::string bytes);
  void replicate_write(net::ConnectionId connection, PendingWrite write,
                       const WriteRequest& request);
  void finish_replicated(net::ConnectionId connection, uint64_t ticket, PendingWrite& write);
  // Answers a write whose txn is applied (`response`: its result).
  void finish(net::ConnectionId connection, PendingWrite& write, const tree::Response& response);

  tree::Database& db_;
  ClientRegistry& clients_;
  SnapshotService& snapshots_;
  ServerStats& stats_;
  storage::Clock& clock_;
  AuditTrail& audit_;
  RequestHandler& handler_;
  std::shared_ptr<net::ReadGate> read_gate_;
  bool held_ = false;
  std::unique_ptr<ServerLog> log_;
  ReplicaHost* host_ = nullptr;
  int64_t last_prepared_zxid_ = 0;  // the last zxid handed to the log
  int64_t durable_zxid_ = 0;        // the log thread's last report
  Pipeline pipeline_;
  ForwardedWrites forwarded_;  // ensemble only
};

}  // namespace zkd::server
