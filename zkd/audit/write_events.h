// SPDX-License-Identifier: Apache-2.0
// Which audit events a server event makes, as Apache ZooKeeper 3.8 decides
// (AuditHelper, ZKAuditProvider, DataTree.deleteNodes): a client's write
// answered, an ephemeral node deleted because its session ended, the server
// started or stopping. Pure: the caller says who asked and what happened.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "zkd/audit/audit_event.h"
#include "zkd/tree/txn.h"

namespace zkd::audit {

// Who sent a request: its session, its connection's users (users_text) and
// the client's address without port (Apache's ServerCnxn.getHostAddress:
// "127.0.0.1", "0:0:0:0:0:0:0:1").
struct Requester {
  int64_t session = 0;
  std::optional<std::string> user;
  std::string ip;
};

// Apache's AuthUtil.getUsers: the user of each of a connection's ids (in the
// order Apache lists them, tree::AuthIds::ids()) joined by ",": a digest
// id's part before its ':', no user for "super" (no provider has that
// scheme), the id itself for the other schemes (ip, sasl, x509); blank users
// left out; nullopt when none is left.
std::optional<std::string> users_text(const std::vector<zk::wire::Id>& ids);

// The events of a client's write request once answered (Apache audits it on
// the server the client is connected to, when the reply is made): `op` and
// `body` are the request's opcode and record (after the RequestHeader),
// `txn` what it became (an error txn, header.type kError, when it failed
// before it could change anything), `err` the result of applying it.
//   - create, create2, createContainer: one "create" event, its znode the
//     node created (with its sequence number), or the requested path when
//     the txn is an error txn; znode_type the mode of the request's flags.
//     Not createTTL (Apache does not audit it outside a multi).
//   - delete, setData: one event, the znode likewise; setACL: one "setAcl"
//     event with the request's ACL (acl_text), failed or not.
//   - multi: an error txn gives one "multiOperation" failure without znode.
//     Otherwise one success event per create (any kind), delete and setData
//     operation of the txn, in order; a create's znode_type only when its
//     created path equals a create, create2 or createContainer request's
//     path in the multi (so never for a sequential node, as in Apache);
//     and, when any operation failed, one "multiOperation" failure at the end.
//   - reconfig: one event, znode /zookeeper/config unless it failed before.
//   - anything else: none.
// Success when `txn` is no error txn and `err` is kOk, failure otherwise.
// A request Apache cannot read back (a body that does not decode, create
// flags naming no mode) makes no event, as Apache logs an error instead.
std::vector<AuditEvent> write_events(const Requester& who, zk::wire::OpCode op,
                                     std::string_view body, const tree::Txn& txn,
                                     zk::wire::Error err);

// An ephemeral node `path` of `session` deleted (or, !deleted, no longer
// there) as the session closed or expired: done by the server, so `user` is
// the server's (system_user()); no ip.
AuditEvent ephemeral_deletion_event(int64_t session, std::string path, bool deleted,
                                    std::string user);

// serverStart (success or failure) and serverStop (invoked), by the server's `user`.
AuditEvent server_event(std::string_view operation, AuditResult result, std::string user);

}  // namespace zkd::audit
