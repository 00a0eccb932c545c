// SPDX-License-Identifier: Apache-2.0
// Server: the durable write path. Prepared txns go to the log
// thread; when it reports them durable they are applied, in order, and the
// requests that waited for them are answered (see server.h).
#include <boost/asio/post.hpp>
#include <utility>

#include "libzk/wire/jute.h"
#include "zkd/net/log.h"
#include "zkd/server/op_tags.h"
#include "zkd/server/replication.h"
#include "zkd/server/server.h"

namespace zkd::server {

using net::hex;
using net::log_error;
using net::log_info;

ClientState* Server::find_client(net::ConnectionId connection) {
  auto it = clients_.find(connection);
  return it == clients_.end() ? nullptr : &it->second;
}

void Server::submit_write(net::ConnectionId connection, PendingWrite write,
                          const WriteRequest& request) {
  if (replicated()) {
    replicate_write(connection, std::move(write), request);
    return;
  }
  write.txn = prepare_write(db_, request, next_zxid(), wall_clock_ms());
  submit(connection, std::move(write));
}

void Server::submit(net::ConnectionId connection, PendingWrite write) {
  std::string bytes;
  zk::wire::Writer w(bytes);
  tree::write_txn(w, write.txn);
  int64_t zxid = write.txn.header.zxid;
  log_->append(zxid, std::move(bytes));
  pipeline_.add_write(connection, zxid, std::move(write));
  snapshots_.logged(last_prepared_zxid_);
}

void Server::on_log_batch(const LogBatch& batch) {
  if (stopped_) return;
  // Posted before a truncation this thread has since made: stale.
  if (batch.status.ok() && batch.truncations < log_->truncations_requested()) return;
  if (!batch.status.ok()) {
    log_error("the txn log failed: ", batch.status.message(),
              "; stopping (writes already acknowledged are safe, pending ones are not)");
    exit_status_ = kExitLogFailure;
    stop();
    return;
  }
  ++stats_.fsyncs;
  stats_.logged_txns += batch.txns;
  stats_.fsync_ms.record(batch.sync_us / 1000);
  durable_zxid_ = batch.durable_zxid;
  if (replicated()) {
    replication_->host.persisted(durable_zxid_);  // drains once settled
    return;
  }
  drain();
}

void Server::drain() {
  // Standalone: writes are released by zxid once durable; in an ensemble by
  // ticket once committed and applied (replication.cc).
  auto released = [this] {
    return replicated() ? static_cast<int64_t>(replication_->writes.released()) : durable_zxid_;
  };
  while (auto step = pipeline_.next(released())) {
    switch (step->kind) {
      case Pipeline::Step::Kind::kWrite: {
        if (replicated()) {
          finish_replicated_write(step->connection, static_cast<uint64_t>(step->zxid),
                                  *step->write);
          break;
        }
        tree::ApplyResult result = db_.apply(step->write->txn);
        // Notifications first: on the writer's own connection they precede its reply.
        deliver(result.notifications, step->write->txn.header.zxid);
        finish_write(step->connection, *step->write, result.response);
        break;
      }
      case Pipeline::Step::Kind::kBarrier:
      case Pipeline::Step::Kind::kRequest: {
        ClientState* client = find_client(step->connection);
        if (client == nullptr || client->phase != ClientState::Phase::kEstablished) break;
        handle_request(
            *client, step->read->payload,
            step->kind == Pipeline::Step::Kind::kBarrier ? Arrival::kReleased : Arrival::kInTurn,
            step->read->started_ms);
        break;
      }
    }
  }
  // Writes of connections that have gone finish without a reply, so no send
  // re-checks globalOutstandingLimit's gate for them: do it once per drain.
  read_gate_->recheck();
}

void Server::finish_write(net::ConnectionId connection, PendingWrite& write,
                          const tree::Response& response) {
  ClientState* client = find_client(connection);
  const int64_t zxid = write.txn.header.zxid;
  switch (write.kind) {
    case PendingWrite::Kind::kReply:
      if (client == nullptr) return;
      reply(*client, write.xid, zxid, write.err.value_or(response.err), response.body,
            op_tag(write.op), write.started_ms);
      return;
    case PendingWrite::Kind::kCreateSession:
      complete_create_session(client, write);
      return;
    case PendingWrite::Kind::kCloseSession:
      if (client == nullptr) return;
      reply(*client, write.xid, zxid, zk::wire::Error::kOk, {},
            op_tag(zk::wire::OpCode::kCloseSession), write.started_ms);
      log_info("session ", hex(write.txn.header.session_id), " closed by ",
               client->connection->remote_text());
      client->connection->close_after_flush();
      return;
    case PendingWrite::Kind::kExpiry:
      return;
    case PendingWrite::Kind::kSync:
      if (client == nullptr || client->phase != ClientState::Phase::kEstablished) return;
      handle_request(*client, write.payload, Arrival::kReleased, write.started_ms);
      return;
  }
}

}  // namespace zkd::server
