// SPDX-License-Identifier: Apache-2.0
#include "zkd/audit/audit_event.h"

#include <array>
#include <utility>

#include "libzk/wire/protocol.h"

namespace zkd::audit {

std::string audit_message(const AuditEvent& event) {
  const std::array<std::pair<std::string_view, const std::optional<std::string>*>, 7> fields{{
      {"session", &event.session},
      {"user", &event.user},
      {"ip", &event.ip},
      {"operation", &event.operation},
      {"znode", &event.znode},
      {"znode_type", &event.znode_type},
      {"acl", &event.acl},
  }};
  std::string out;
  for (const auto& [key, value] : fields) {
    if (!value->has_value()) continue;
    out.append(key).append("=").append(**value).append("\t");
  }
  out.append("result=").append(result_name(event.result));
  return out;
}

std::string_view result_name(AuditResult result) {
  switch (result) {
    case AuditResult::kSuccess:
      return "success";
    case AuditResult::kFailure:
      return "failure";
    case AuditResult::kInvoked:
      return "invoked";
  }
  return "failure";
}

std::optional<std::string> create_mode_name(int32_t flags) {
  using zk::wire::CreateMode;
  switch (static_cast<CreateMode>(flags)) {
    case CreateMode::kPersistent:
      return "persistent";
    case CreateMode::kEphemeral:
      return "ephemeral";
    case CreateMode::kPersistentSequential:
      return "persistent_sequential";
    case CreateMode::kEphemeralSequential:
      return "ephemeral_sequential";
    case CreateMode::kContainer:
      return "container";
    case CreateMode::kPersistentWithTTL:
      return "persistent_with_ttl";
    case CreateMode::kPersistentSequentialWithTTL:
      return "persistent_sequential_with_ttl";
  }
  return std::nullopt;
}

std::string acl_text(const zk::wire::ACLs& acl) {
  namespace perms = zk::wire::perms;
  std::string out;
  for (const zk::wire::ACL& entry : acl) {
    out.append(entry.id.scheme).append(":").append(entry.id.id).append(":");
    if (entry.perms & perms::kCreate) out += 'c';
    if (entry.perms & perms::kDelete) out += 'd';
    if (entry.perms & perms::kRead) out += 'r';
    if (entry.perms & perms::kWrite) out += 'w';
    if (entry.perms & perms::kAdmin) out += 'a';
  }
  return out;
}

}  // namespace zkd::audit
