// SPDX-License-Identifier: Apache-2.0
// One audit event and its text, as Apache ZooKeeper 3.8's audit log writes it
// (org.apache.zookeeper.audit.AuditEvent): "key=value" pairs joined by tabs,
// in the order session, user, ip, operation, znode, znode_type, acl, absent
// fields left out, then always "result=" success, failure or invoked:
//
//   session=0x100027b4aab0000<TAB>user=127.0.0.1,alice<TAB>ip=127.0.0.1<TAB>
//   operation=create<TAB>znode=/a<TAB>znode_type=persistent<TAB>result=success
//
// Pure: no clock, no I/O. docs/audit-log.md says which operations make which
// events.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "libzk/wire/records.h"

namespace zkd::audit {

enum class AuditResult { kSuccess, kFailure, kInvoked };

// Apache's operation names (AuditConstants).
inline constexpr std::string_view kOpServerStart = "serverStart";
inline constexpr std::string_view kOpServerStop = "serverStop";
inline constexpr std::string_view kOpCreate = "create";
inline constexpr std::string_view kOpDelete = "delete";
inline constexpr std::string_view kOpSetData = "setData";
inline constexpr std::string_view kOpSetAcl = "setAcl";
inline constexpr std::string_view kOpMulti = "multiOperation";
inline constexpr std::string_view kOpReconfig = "reconfig";
inline constexpr std::string_view kOpEphemeralDeletion =
    "ephemeralZNodeDeletionOnSessionCloseOrExpire";

// A field left empty (nullopt) is not written; an empty string is ("ip=").
struct AuditEvent {
  std::optional<std::string> session;  // the session id as net::hex writes it ("0x1a2b")
  std::optional<std::string> user;     // users_text() of the session's ids
  std::optional<std::string> ip;       // the client's address, without port
  std::optional<std::string> operation;
  std::optional<std::string> znode;
  std::optional<std::string> znode_type;  // create_mode_name()
  std::optional<std::string> acl;         // acl_text(), setAcl only
  AuditResult result = AuditResult::kSuccess;

  bool operator==(const AuditEvent&) const = default;
};

// The event's text, without line end (Apache's AuditEvent.toString).
std::string audit_message(const AuditEvent& event);

// "success", "failure", "invoked".
std::string_view result_name(AuditResult result);

// The name of a create's flags as Apache's audit writes it (CreateMode's name
// in lower case: persistent, ephemeral, persistent_sequential,
// ephemeral_sequential, container, persistent_with_ttl,
// persistent_sequential_with_ttl); nullopt for flags that name no mode, for
// which Apache writes no event at all.
std::optional<std::string> create_mode_name(int32_t flags);

// An ACL list as Apache's ZKUtil.aclToString writes it: each entry as
// scheme:id:perms (perms in the order c d r w a), the entries run together
// with no separator: "world:anyone:rdigest:bob:x=:cdrwa".
std::string acl_text(const zk::wire::ACLs& acl);

}  // namespace zkd::audit
