// SPDX-License-Identifier: Apache-2.0
#include "zkd/audit/write_events.h"

#include <algorithm>
#include <map>
#include <type_traits>
#include <utility>
#include <variant>

#include "libzk/wire/multi.h"
#include "zkd/log/log.h"

namespace zkd::audit {
namespace {

using zk::wire::Error;
using zk::wire::OpCode;

// The path a txn names; nullopt for txns without one.
std::optional<std::string> txn_path(const tree::Txn& txn) {
  return std::visit(
      [](const auto& body) -> std::optional<std::string> {
        if constexpr (requires { body.path; }) {
          return body.path;
        } else {
          return std::nullopt;
        }
      },
      txn.body);
}

bool is_create(OpCode op) {
  return op == OpCode::kCreate || op == OpCode::kCreate2 || op == OpCode::kCreateContainer;
}

AuditEvent event_of(const Requester& who, std::string_view operation,
                    std::optional<std::string> znode, AuditResult result) {
  AuditEvent event;
  event.session = net::hex(who.session);
  event.user = who.user;
  event.ip = who.ip;
  event.operation = std::string(operation);
  event.znode = std::move(znode);
  event.result = result;
  return event;
}

// A request's path, when its record decodes.
template <typename Record>
std::optional<std::string> request_path(std::string_view body) {
  Record request;
  if (!zk::wire::decode(body, request)) return std::nullopt;
  return request.path;
}

// Apache's logMultiOperation: the events of a multi txn that was not an
// error txn; `modes` maps the requested paths of its creates to their modes.
std::vector<AuditEvent> multi_events(const Requester& who, const tree::Txn& txn,
                                     const std::map<std::string, std::string>& modes) {
  std::vector<AuditEvent> events;
  const auto* multi = std::get_if<tree::MultiTxn>(&txn.body);
  if (multi == nullptr) return events;
  bool failed = false;
  for (const tree::Txn& sub : multi->ops) {
    std::optional<std::string> path = txn_path(sub);
    switch (sub.header.type) {
      case OpCode::kCreate:
      case OpCode::kCreate2:
      case OpCode::kCreateTTL:
      case OpCode::kCreateContainer: {
        AuditEvent event = event_of(who, kOpCreate, path, AuditResult::kSuccess);
        if (path) {
          if (auto mode = modes.find(*path); mode != modes.end()) event.znode_type = mode->second;
        }
        events.push_back(std::move(event));
        break;
      }
      case OpCode::kDelete:
      case OpCode::kDeleteContainer:
        events.push_back(event_of(who, kOpDelete, path, AuditResult::kSuccess));
        break;
      case OpCode::kSetData:
        events.push_back(event_of(who, kOpSetData, path, AuditResult::kSuccess));
        break;
      case OpCode::kError:
        failed = true;
        break;
      default:
        break;
    }
  }
  if (failed) events.push_back(event_of(who, kOpMulti, std::nullopt, AuditResult::kFailure));
  return events;
}

// Apache's getCreateModes: requested path -> mode of each create, create2 and
// createContainer operation; nullopt when the request does not decode or a
// create's flags name no mode (Apache then audits nothing of the multi).
std::optional<std::map<std::string, std::string>> multi_create_modes(std::string_view body) {
  std::vector<zk::wire::MultiOp> ops;
  if (!zk::wire::decode_multi_request(body, ops)) return std::nullopt;
  std::map<std::string, std::string> modes;
  for (const zk::wire::MultiOp& op : ops) {
    if (!is_create(op.type)) continue;
    const auto* create = std::get_if<zk::wire::CreateRequest>(&op.request);
    if (create == nullptr) continue;
    auto mode = create_mode_name(create->flags);
    if (!mode) return std::nullopt;
    modes.insert_or_assign(create->path, *std::move(mode));
  }
  return modes;
}

}  // namespace

std::optional<std::string> users_text(const std::vector<zk::wire::Id>& ids) {
  std::string out;
  for (const zk::wire::Id& id : ids) {
    if (id.scheme == "super") continue;
    std::string user = id.scheme == "digest" ? id.id.substr(0, id.id.find(':')) : id.id;
    // Java's trim().isEmpty(): every character up to ' ' counts as blank.
    if (std::all_of(user.begin(), user.end(), [](unsigned char c) { return c <= ' '; })) continue;
    if (!out.empty()) out += ',';
    out += user;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::vector<AuditEvent> write_events(const Requester& who, OpCode op, std::string_view body,
                                     const tree::Txn& txn, Error err) {
  const bool failed_txn = txn.header.type == OpCode::kError;
  const AuditResult result =
      failed_txn || err != Error::kOk ? AuditResult::kFailure : AuditResult::kSuccess;
  switch (op) {
    case OpCode::kCreate:
    case OpCode::kCreate2:
    case OpCode::kCreateContainer: {
      zk::wire::CreateRequest request;
      if (!zk::wire::decode(body, request)) return {};
      auto mode = create_mode_name(request.flags);
      if (!mode) return {};
      AuditEvent event =
          event_of(who, kOpCreate, failed_txn ? request.path : txn_path(txn), result);
      event.znode_type = std::move(mode);
      return {event};
    }
    case OpCode::kDelete:
    case OpCode::kDeleteContainer:
    case OpCode::kSetData: {
      auto path = failed_txn
                      ? (op == OpCode::kSetData ? request_path<zk::wire::SetDataRequest>(body)
                                                : request_path<zk::wire::DeleteRequest>(body))
                      : txn_path(txn);
      if (failed_txn && !path) return {};
      return {event_of(who, op == OpCode::kSetData ? kOpSetData : kOpDelete, path, result)};
    }
    case OpCode::kSetACL: {
      zk::wire::SetACLRequest request;
      if (!zk::wire::decode(body, request)) return {};
      AuditEvent event =
          event_of(who, kOpSetAcl, failed_txn ? request.path : txn_path(txn), result);
      event.acl = acl_text(request.acl);
      return {event};
    }
    case OpCode::kMulti: {
      if (failed_txn) return {event_of(who, kOpMulti, std::nullopt, AuditResult::kFailure)};
      auto modes = multi_create_modes(body);
      if (!modes) return {};
      return multi_events(who, txn, *modes);
    }
    case OpCode::kReconfig:
      return {event_of(who, kOpReconfig, failed_txn ? std::nullopt : txn_path(txn), result)};
    default:
      return {};
  }
}

AuditEvent ephemeral_deletion_event(int64_t session, std::string path, bool deleted,
                                    std::string user) {
  AuditEvent event;
  event.session = net::hex(session);
  event.user = std::move(user);
  event.operation = std::string(kOpEphemeralDeletion);
  event.znode = std::move(path);
  event.result = deleted ? AuditResult::kSuccess : AuditResult::kFailure;
  return event;
}

AuditEvent server_event(std::string_view operation, AuditResult result, std::string user) {
  AuditEvent event;
  event.user = std::move(user);
  event.operation = std::string(operation);
  event.result = result;
  return event;
}

}  // namespace zkd::audit
