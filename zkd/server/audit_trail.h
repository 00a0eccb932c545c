// SPDX-License-Identifier: Apache-2.0
// Apache ZooKeeper's audit log in the server (audit.enable; docs/audit-log.md):
// the one object the parts hand their audited moments to, which turns them
// into events (zkd/audit/write_events.h) and writes them to the audit log.
// Disabled (the default), every call does nothing and requester() gives
// nothing, so a write carries no more than before.
//
// Where each moment is, as Apache's: a client's write when this server, the
// one the client is connected to, answers it (WritePath::finish, Apache's
// FinalRequestProcessor); the deletion of a closed or expired session's
// ephemeral nodes when each replica applies the closeSession txn (Apache's
// DataTree, on every server); serverStart once the server serves (or
// failed to start), serverStop when it stops.
//
// Threading: the state thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "libzk/wire/protocol.h"
#include "zkd/audit/audit_log.h"
#include "zkd/clock/clock.h"
#include "zkd/server/client_state.h"
#include "zkd/server/config.h"
#include "zkd/server/pending_write.h"
#include "zkd/status/status.h"
#include "zkd/tree/results.h"
#include "zkd/tree/txn.h"

namespace zkd::server {

// The only audit.impl.class zkd accepts: the logger whose lines it writes.
inline constexpr std::string_view kSlf4jAuditLogger = "org.apache.zookeeper.audit.Slf4jAuditLogger";

class AuditTrail {
 public:
  AuditTrail() = default;
  AuditTrail(const AuditTrail&) = delete;
  AuditTrail& operator=(const AuditTrail&) = delete;

  // When config.audit_enabled: checks audit.impl.class (kConfig error for
  // another class) and opens the log file (zkd.auditLogFile, by default
  // dataDir/zookeeper_audit.log), whose lines `clock` stamps. `server_user`:
  // who the server's own events are by (server_user()). Otherwise nothing.
  Status open(const ServerConfig& config, Clock& clock, std::string server_user);
  // Instead of open(): events go to `sink` (tests).
  void use_sink(std::unique_ptr<audit::AuditSink> sink, std::string server_user);
  bool enabled() const { return sink_ != nullptr; }

  // What an audited write of `client` carries until answered: who sent it
  // and its `body` (the record after the RequestHeader). nullopt when disabled.
  std::optional<AuditedWrite> requester(const ClientState& client, std::string_view body) const;
  // The write `audited` (opcode `op`) is answered: `txn` is what it became,
  // `err` its result.
  void answered(const AuditedWrite& audited, zk::wire::OpCode op, const tree::Txn& txn,
                zk::wire::Error err);
  // A txn was applied: a closeSession's ephemeral nodes (result.closed_ephemerals).
  void applied(const tree::Txn& txn, const tree::ApplyResult& result);
  // serverStart: success once serving, failure when start-up failed after open().
  void started();
  void start_failed();
  // serverStop (invoked), once, after started().
  void stopping();

 private:
  void write(const audit::AuditEvent& event);

  std::unique_ptr<audit::AuditSink> sink_;
  std::string server_user_;
  bool started_ = false;
};

// Who the server's own events are by, as Apache's ServerCnxnFactory.getUserName:
// the Kerberos principal the server logs in as (`gssapi_principal`, "" when
// it has none), else the name of the user running the process.
std::string server_user(std::string_view gssapi_principal);

}  // namespace zkd::server
