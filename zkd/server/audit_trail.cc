// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/audit_trail.h"

#include <pwd.h>
#include <unistd.h>

#include <utility>
#include <vector>

#include "zkd/audit/write_events.h"
#include "zkd/log/log.h"
#include "zkd/server/client_registry.h"

namespace zkd::server {

Status AuditTrail::open(const ServerConfig& config, Clock& clock, std::string server_user) {
  if (!config.audit_enabled) return {};
  if (!config.audit_impl_class.empty() && config.audit_impl_class != kSlf4jAuditLogger) {
    return Status::config("audit.impl.class=" + config.audit_impl_class +
                          ": zkd writes the lines of Apache's " + std::string(kSlf4jAuditLogger) +
                          " only; remove the key or name that class");
  }
  audit::AuditFileOptions options;
  options.path = config.audit_log_file.empty() ? (config.data_dir / "zookeeper_audit.log").string()
                                               : config.audit_log_file;
  options.max_file_size = config.audit_log_max_file_size;
  options.max_backup_index = config.audit_log_max_backup_index;
  auto file = audit::AuditLogFile::open(options, clock);
  if (!file.ok()) return file.status();
  net::log_info("audit log enabled: ", options.path);
  use_sink(*std::move(file), std::move(server_user));
  return {};
}

void AuditTrail::use_sink(std::unique_ptr<audit::AuditSink> sink, std::string server_user) {
  sink_ = std::move(sink);
  server_user_ = std::move(server_user);
}

std::optional<AuditedWrite> AuditTrail::requester(const ClientState& client,
                                                  std::string_view body) const {
  if (!enabled()) return std::nullopt;
  return AuditedWrite{.who = {client.session_id, audit::users_text(client.auth.ids()),
                              peer_ip_id(*client.connection)},
                      .body = std::string(body)};
}

void AuditTrail::answered(const AuditedWrite& audited, zk::wire::OpCode op, const tree::Txn& txn,
                          zk::wire::Error err) {
  if (!enabled()) return;
  for (const audit::AuditEvent& event :
       audit::write_events(audited.who, op, audited.body, txn, err)) {
    write(event);
  }
}

void AuditTrail::applied(const tree::Txn& txn, const tree::ApplyResult& result) {
  if (!enabled()) return;
  for (const auto& [path, deleted] : result.closed_ephemerals) {
    write(audit::ephemeral_deletion_event(txn.header.session_id, path, deleted, server_user_));
  }
}

void AuditTrail::started() {
  if (!enabled() || started_) return;
  started_ = true;
  write(audit::server_event(audit::kOpServerStart, audit::AuditResult::kSuccess, server_user_));
}

void AuditTrail::start_failed() {
  if (!enabled() || started_) return;
  write(audit::server_event(audit::kOpServerStart, audit::AuditResult::kFailure, server_user_));
}

void AuditTrail::stopping() {
  if (!enabled() || !started_) return;
  started_ = false;
  write(audit::server_event(audit::kOpServerStop, audit::AuditResult::kInvoked, server_user_));
}

void AuditTrail::write(const audit::AuditEvent& event) { sink_->write(event); }

std::string server_user(std::string_view gssapi_principal) {
  if (!gssapi_principal.empty()) return std::string(gssapi_principal);
  // Java's user.name: the name of the real user id.
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 &&
      found != nullptr && found->pw_name != nullptr) {
    return found->pw_name;
  }
  return "<NA>";
}

}  // namespace zkd::server
