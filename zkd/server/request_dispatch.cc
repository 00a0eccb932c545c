// SPDX-License-Identifier: Apache-2.0
// ClientService: answering requests on an established session (§3, §4 of
// docs/wire-protocol.md).
#include <string>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/op_table.h"
#include "libzk/wire/records.h"
#include "zkd/log/log.h"
#include "zkd/server/authentication.h"
#include "zkd/server/client_frames.h"
#include "zkd/server/client_service.h"
#include "zkd/server/op_tags.h"
#include "zkd/server/reconfig.h"
#include "zkd/server/request_kinds.h"
#include "zkd/server/request_metrics.h"
#include "zkd/tree/acl_check.h"

namespace zkd::server {

using net::hex;
using net::log_info;
using net::log_warn;
using zk::wire::Error;
using zk::wire::OpCode;
using zk::wire::OpKind;

namespace {

// reconfig (16) that goes no further than this server: RECONFIGDISABLED
// unless enabled; a standalone server cannot reconfigure (UNIMPLEMENTED).
Error reconfig_error(std::string_view body, bool enabled) {
  if (!decode_reconfig_request(body)) return Error::kMarshallingError;
  return enabled ? Error::kUnimplemented : Error::kReconfigDisabled;
}

}  // namespace

void ClientService::handle(ClientState& client, std::string_view payload, Arrival arrival,
                           int64_t started) {
  zk::wire::Reader r(payload);
  zk::wire::RequestHeader header;
  header.read(r);
  if (!r.ok()) {
    log_warn("closing connection from ", client.connection->remote_text(),
             ": request shorter than its header");
    ClientRegistry::close(client);
    return;
  }
  std::string_view body = r.rest();
  const int32_t xid = header.xid;
  const OpCode op = header.type;
  const net::ConnectionId id = client.connection->id();

  if (arrival == Arrival::kNew && op != OpCode::kAuth && op != OpCode::kSasl &&
      !authentication_enforced(client, xid)) {
    return;
  }
  if (arrival == Arrival::kNew) {
    if (!client.read_only) sessions_.used(client.session_id, client.timeout_ms, started);
    // auth and sasl are answered outside the pipeline, so they may overtake
    // earlier requests (§3.4); everything else waits its turn.
    // A write behind writes only is prepared at once (pipelined, in order).
    const bool pipelined = is_tree_write(op) && writes_.pipeline().only_marks(id);
    if (op != OpCode::kAuth && op != OpCode::kSasl && writes_.pipeline().busy(id) && !pipelined) {
      writes_.pipeline().defer(id, PendingRequest{std::string(payload), started});
      return;
    }
  }

  if (client.read_only && answer_read_only(client, xid, op, started)) return;
  // The route is the opcode's OpKind (libzk/wire/op_table.h); a value that is
  // no OpCode is kUnsupported.
  switch (zk::wire::op_kind(op)) {
    case OpKind::kRead: {
      // A sync is answered once the writes before it are applied (write_path.h).
      if (op == OpCode::kSync && arrival != Arrival::kReleased &&
          !writes_.sync(client, payload, started)) {
        return;
      }
      // Apache's FinalRequestProcessor for a read: reading and answering.
      const int64_t read_ms = clock_.steady_ms();
      // Apache's CommitProcessor: the wait behind the session's writes.
      stats_.metrics.read_commitproc_time_ms.record(read_ms - started);
      tree::Response response = db_.read(id, op, body, client.auth);
      record_read(stats_.metrics, op, body, response.body.size());
      const int64_t answered_ms =
          clients_.reply(client, xid, db_.last_zxid(), response.err, response.body, op, started);
      stats_.metrics.read_final_proc_time_ms.record(answered_ms - read_ms);
      return;
    }
    case OpKind::kWrite:
      answer_write(client, xid, op, body, started);
      return;
    case OpKind::kServer:
      if (answer_server_op(client, xid, op, body, started)) return;
      break;
    case OpKind::kUnsupported:
      break;
  }
  // check (13) outside a multi lands here too (op_table.h).
  log_info("closing connection from ", client.connection->remote_text(), " (session ",
           hex(client.session_id), "): unsupported opcode ", static_cast<int32_t>(op),
           op == OpCode::kCheck ? " (check outside a multi)" : "");
  clients_.send(client, reply_frame(xid, -1, Error::kUnimplemented, {}));
  ClientRegistry::close_after_flush(client);
}

bool ClientService::answer_server_op(ClientState& client, int32_t xid, OpCode op,
                                     std::string_view body, int64_t started) {
  switch (op) {
    case OpCode::kPing:
      clients_.reply(client, zk::wire::kPingXid, db_.last_zxid(), Error::kOk, {}, op, started);
      return true;
    case OpCode::kCloseSession:
      answer_close_session(client, xid, started);
      return true;
    case OpCode::kSetWatches:
    case OpCode::kSetWatches2:
      answer_set_watches(client, xid, op, body, started);
      return true;
    case OpCode::kAuth:
      answer_auth(client, xid, body);
      return true;
    case OpCode::kSasl:
      answer_sasl(client, xid, body);
      return true;
    case OpCode::kGetEphemerals:
      answer_get_ephemerals(client, xid, body, started);
      return true;
    case OpCode::kWhoAmI:
      answer_who_am_i(client, xid, started);
      return true;
    case OpCode::kReconfig:
      // An ensemble's leader decides (ReplicaHost::prepare_reconfig).
      if (config_.reconfig_enabled && writes_.host() != nullptr && decode_reconfig_request(body)) {
        answer_write(client, xid, op, body, started);
      } else {
        answer_with_error_txn(client, xid, op, body, reconfig_error(body, config_.reconfig_enabled),
                              started);
      }
      return true;
    case OpCode::kDeleteContainer:
      // server-internal (§4.1): only the container manager sends it
      answer_with_error_txn(client, xid, op, body, Error::kBadArguments, started);
      return true;
    // Not OpKind::kServer: routed elsewhere by handle.
    case OpCode::kNotification:
    case OpCode::kCreate:
    case OpCode::kDelete:
    case OpCode::kExists:
    case OpCode::kGetData:
    case OpCode::kSetData:
    case OpCode::kGetACL:
    case OpCode::kSetACL:
    case OpCode::kGetChildren:
    case OpCode::kSync:
    case OpCode::kGetChildren2:
    case OpCode::kCheck:
    case OpCode::kMulti:
    case OpCode::kCreate2:
    case OpCode::kCheckWatches:
    case OpCode::kRemoveWatches:
    case OpCode::kCreateContainer:
    case OpCode::kCreateTTL:
    case OpCode::kMultiRead:
    case OpCode::kGetAllChildrenNumber:
    case OpCode::kAddWatch:
    case OpCode::kCreateSession:
    case OpCode::kError:
      return false;
  }
  return false;  // no OpCode
}

bool ClientService::answer_read_only(ClientState& client, int32_t xid, OpCode op, int64_t started) {
  if (op == OpCode::kCloseSession) {
    // The session stays as the quorum knows it (a resumed one expires there).
    client.close_requested = true;
    clients_.reply(client, xid, db_.last_zxid(), Error::kOk, {}, op, started);
    ClientRegistry::close_after_flush(client);
    return true;
  }
  // Apache's ReadOnlyRequestProcessor: every change, sync and reconfig.
  if (refused_read_only(op)) {
    clients_.reply(client, xid, db_.last_zxid(), Error::kNotReadOnly, {}, op, started);
    return true;
  }
  return false;
}

void ClientService::answer_write(ClientState& client, int32_t xid, OpCode op, std::string_view body,
                                 int64_t started) {
  WriteRequest request;
  request.session = client.session_id;
  request.xid = xid;
  request.op = op;
  request.body = std::string(body);
  request.auth = client.auth;
  PendingWrite write;
  write.xid = xid;
  write.op = op;
  write.started_ms = started;
  write.audit = audit_.requester(client, body);
  writes_.submit(client.connection->id(), std::move(write), request);
}

void ClientService::answer_with_error_txn(ClientState& client, int32_t xid, OpCode op,
                                          std::string_view body, Error err, int64_t started) {
  // A follower of an Apache leader (zkd.peerProtocol=apache): the leader
  // orders no error txn for a request it never sees, so the error is answered
  // here, with the last zxid applied. Nothing is ahead of it: a request that
  // is not pipelined reaches here only once its connection's pipeline is
  // empty.
  if (config_.apache_peer_protocol && writes_.host() != nullptr &&
      writes_.host()->status().role != zab::Role::kLeading) {
    if (auto audited = audit_.requester(client, body)) {
      tree::Txn txn;
      txn.header.session_id = client.session_id;
      txn.header.type = OpCode::kError;
      txn.body = tree::ErrorTxn{err};
      audit_.answered(*audited, op, txn, err);
    }
    clients_.send(client, reply_frame(xid, db_.last_zxid(), err, {}));
    return;
  }
  WriteRequest request;
  request.kind = WriteRequest::Kind::kError;
  request.session = client.session_id;
  request.xid = xid;
  request.err = err;
  PendingWrite write;
  write.xid = xid;
  write.op = op;
  write.err = err;
  write.started_ms = started;
  write.audit = audit_.requester(client, body);
  writes_.submit(client.connection->id(), std::move(write), request);
}

void ClientService::answer_close_session(ClientState& client, int32_t xid, int64_t started) {
  SessionId session = client.session_id;
  sessions_.forget(session);
  clients_.unbind(session);
  client.close_requested = true;
  WriteRequest request;
  request.kind = WriteRequest::Kind::kCloseSession;
  request.session = session;
  request.xid = xid;
  PendingWrite write;
  write.kind = PendingWrite::Kind::kCloseSession;
  write.xid = xid;
  write.op = OpCode::kCloseSession;
  write.started_ms = started;
  writes_.submit(client.connection->id(), std::move(write), request);
}

void ClientService::answer_set_watches(ClientState& client, int32_t xid, OpCode op,
                                       std::string_view body, int64_t started) {
  zk::wire::Reader r(body);
  zk::wire::SetWatches request;
  request.read(r, /*v2=*/op == OpCode::kSetWatches2);
  if (!r.ok()) {
    log_warn("malformed setWatches from ", client.connection->remote_text());
    clients_.reply(client, xid, db_.last_zxid(), Error::kMarshallingError, {}, op, started);
    return;
  }
  // Catch-up events go out before the (header-only) reply (§9.5).
  clients_.deliver(db_.set_watches(client.connection->id(), request), kNoZxid);
  clients_.reply(client, xid, db_.last_zxid(), Error::kOk, {}, op, started);
}

void ClientService::answer_auth(ClientState& client, int32_t xid, std::string_view body) {
  zk::wire::AuthPacket packet;
  if (!zk::wire::decode(body, packet)) {
    log_warn("closing connection from ", client.connection->remote_text(),
             ": malformed auth packet");
    ClientRegistry::close(client);
    return;
  }
  // Answered outside the request pipeline, zxid 0 (§3.3, §10.3). The ids
  // count for every request answered from now on, including those that
  // arrived earlier and still wait their turn (Apache gives a request the ids
  // its connection had when the request was read).
  if (auto ids = authenticate(packet, peer_ip_id(*client.connection), config_.digest)) {
    for (const auto& id : *ids) client.auth.add(id);
    clients_.send(client, reply_frame(xid, 0, Error::kOk, {}));
    return;
  }
  ++stats_.auth_failures;
  log_info("auth with unknown scheme '", packet.scheme, "' from ", client.connection->remote_text(),
           "; closing");
  clients_.send(client, reply_frame(xid, 0, Error::kAuthFailed, {}));
  ClientRegistry::close_after_flush(client);
}

bool ClientService::authentication_enforced(ClientState& client, int32_t xid) {
  if (!config_.enforce_auth) return true;
  for (const zk::wire::Id& id : client.auth.ids()) {
    for (const std::string& scheme : config_.enforce_auth_schemes) {
      if (id.scheme == scheme) return true;
    }
  }
  std::string schemes;
  for (const zk::wire::Id& id : client.auth.ids())
    schemes += (schemes.empty() ? "" : ",") + id.scheme;
  log_warn("closing connection from ", client.connection->remote_text(), ": its schemes [", schemes,
           "] include none of enforce.auth.schemes");
  clients_.send(client, reply_frame(xid, 0, Error::kSessionClosedRequireSaslAuth, {}));
  ClientRegistry::close_after_flush(client);
  return false;
}

void ClientService::answer_sasl(ClientState& client, int32_t xid, std::string_view body) {
  zk::wire::Reader r(body);
  const zk::wire::Buffer token = r.buffer();
  if (!r.ok()) {
    log_warn("closing connection from ", client.connection->remote_text(),
             ": malformed SASL packet");
    ClientRegistry::close(client);
    return;
  }
  // Answered outside the request pipeline with zxid 0, like auth (§10.6).
  if (!client.sasl) {
    client.sasl = security_.sasl ? security_.sasl->start()
                                 : sasl::refused_exchange(
                                       "SASL is not set up on this server (no JAAS file: zkd "
                                       "--jaas, or -Djava.security.auth.login.config)");
  }
  sasl::SaslExchange::Step step = client.sasl->step(token.value_or(""));
  if (step.outcome == sasl::SaslExchange::Step::Outcome::kFailed) {
    ++stats_.auth_failures;
    log_warn("SASL authentication of ", client.connection->remote_text(), " failed (", step.error,
             "); closing");
    std::string null_token;
    zk::wire::Writer(null_token).buffer(zk::wire::Buffer{});
    clients_.send(client, reply_frame(xid, 0, Error::kAuthFailed, null_token));
    ClientRegistry::close_after_flush(client);
    return;
  }
  if (step.outcome == sasl::SaslExchange::Step::Outcome::kComplete) {
    const bool kerberos =
        security_.sasl->settings().mechanism == sasl::SaslSettings::Mechanism::kGssapi;
    const std::string id =
        kerberos ? kerberos_sasl_id(step.authenticated_id, config_.kerberos_remove_host,
                                    config_.kerberos_remove_realm)
                 : step.authenticated_id;
    log_info("SASL authentication of ", client.connection->remote_text(), " as ", id);
    client.auth.add({std::string(tree::kSaslScheme), id});
    if (!config_.sasl_super_user.empty() && id == config_.sasl_super_user) {
      client.auth.add({std::string(tree::kSuperScheme), ""});
    }
  }
  std::string reply;
  zk::wire::Writer(reply).buffer(step.token);
  clients_.send(client, reply_frame(xid, 0, Error::kOk, reply));
}

void ClientService::answer_get_ephemerals(ClientState& client, int32_t xid, std::string_view body,
                                          int64_t started) {
  zk::wire::PathRecord request;
  if (!zk::wire::decode(body, request)) {
    clients_.reply(client, xid, db_.last_zxid(), Error::kMarshallingError, {},
                   OpCode::kGetEphemerals, started);
    return;
  }
  std::string_view prefix = request.path;
  while (!prefix.empty() && prefix.front() == ' ') prefix.remove_prefix(1);
  while (!prefix.empty() && prefix.back() == ' ') prefix.remove_suffix(1);
  bool all = prefix.empty() || prefix == "/";
  std::vector<std::string> paths;
  for (auto& path : db_.ephemerals(client.session_id)) {
    if (all || path.rfind(request.path, 0) == 0) paths.push_back(std::move(path));
  }
  std::string out;
  zk::wire::Writer(out).strings(paths);
  clients_.reply(client, xid, db_.last_zxid(), Error::kOk, out, OpCode::kGetEphemerals, started);
}

// Answered in request order, from the connection's ids (§4.3).
void ClientService::answer_who_am_i(ClientState& client, int32_t xid, int64_t started) {
  const std::string body = zk::wire::encode(who_am_i(client.auth.ids()));
  clients_.reply(client, xid, db_.last_zxid(), Error::kOk, body, OpCode::kWhoAmI, started);
}

}  // namespace zkd::server
