// StandaloneServer: the durable write path. Prepared txns go to the log
// thread; when it reports them durable they are applied, in order, and the
// requests that waited for them are answered (see standalone_server.h).
#include <boost/asio/post.hpp>
#include <utility>

#include "libzk/wire/jute.h"
#include "zkd/net/log.h"
#include "zkd/server/op_tags.h"
#include "zkd/server/standalone_server.h"

namespace zkd::server {

using net::hex;
using net::log_error;
using net::log_info;

ClientState* StandaloneServer::find_client(net::ConnectionId connection) {
  auto it = clients_.find(connection);
  return it == clients_.end() ? nullptr : &it->second;
}

void StandaloneServer::submit(net::ConnectionId connection, PendingWrite write) {
  std::string bytes;
  zk::wire::Writer w(bytes);
  tree::write_txn(w, write.txn);
  int64_t zxid = write.txn.header.zxid;
  log_->append(zxid, std::move(bytes));
  pipeline_.add_write(connection, zxid, std::move(write));
  if (snapshot_schedule_.logged() && !snapshot_job_) start_snapshot();
}

void StandaloneServer::on_log_batch(const LogBatch& batch) {
  if (stopped_) return;
  if (!batch.status.ok()) {
    log_error("the txn log failed: ", batch.status.message(),
              "; stopping (writes already acknowledged are safe, pending ones are not)");
    exit_status_ = kExitLogFailure;
    stop();
    return;
  }
  ++fsyncs_;
  logged_txns_ += batch.txns;
  fsync_ms_.record(batch.sync_us / 1000);
  durable_zxid_ = batch.durable_zxid;
  drain();
}

void StandaloneServer::drain() {
  while (auto step = pipeline_.next(durable_zxid_)) {
    switch (step->kind) {
      case Pipeline::Step::Kind::kWrite:
        finish_write(step->connection, *step->write);
        break;
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
}

void StandaloneServer::finish_write(net::ConnectionId connection, PendingWrite& write) {
  tree::ApplyResult result = db_.apply(write.txn);
  // Notifications first: on the writer's own connection they precede its reply.
  deliver(result.notifications);
  ClientState* client = find_client(connection);
  const int64_t zxid = write.txn.header.zxid;
  switch (write.kind) {
    case PendingWrite::Kind::kReply:
      if (client == nullptr) return;
      reply(*client, write.xid, zxid, write.err.value_or(result.response.err), result.response.body,
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
  }
}

}  // namespace zkd::server
