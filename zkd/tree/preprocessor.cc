#include "zkd/tree/preprocessor.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "libzk/wire/path.h"
#include "libzk/wire/records.h"

namespace zkd::tree {
namespace {

using zk::wire::Error;
using zk::wire::OpCode;

ErrorTxn fail(Error err) { return ErrorTxn{err}; }

// Java int arithmetic: +1 wraps at 2^31 - 1.
int32_t plus_one(int32_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v) + 1u); }

// Apache's checkAndIncVersion: -1 matches any version.
bool version_matches(int32_t current, int32_t expected) {
  return expected == -1 || expected == current;
}

bool has_slash_and_no_nul(std::string_view path) {
  return path.find('/') != std::string_view::npos && path.find('\0') == std::string_view::npos;
}

// The part of Apache's fixupACL that needs no auth information: duplicates
// are dropped (first occurrence kept); an empty list and a world id other
// than "anyone" are INVALIDACL. Other schemes are stored unchecked for now.
std::optional<zk::wire::ACLs> fix_acl(const zk::wire::ACLs& given) {
  zk::wire::ACLs out;
  for (const auto& acl : given) {
    if (std::find(out.begin(), out.end(), acl) == out.end()) out.push_back(acl);
  }
  if (out.empty()) return std::nullopt;
  for (const auto& acl : out) {
    if (acl.id.scheme == "world" && acl.id.id != "anyone") return std::nullopt;
  }
  return out;
}

std::string sequence_suffix(int32_t counter) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%010d", counter);
  return buf;
}

}  // namespace

Txn Preprocessor::write(SessionId session, int32_t xid, OpCode op, std::string_view body,
                        int64_t zxid, int64_t time_ms) const {
  if (op == OpCode::kCloseSession) return close_session(session, xid, zxid, time_ms);
  TxnBody result;
  switch (op) {
    case OpCode::kCreate:
    case OpCode::kCreate2:
      result = create(session, body);
      break;
    case OpCode::kDelete:
      result = remove(session, body);
      break;
    case OpCode::kSetData:
      result = set_data(session, body);
      break;
    case OpCode::kSetACL:
      result = set_acl(session, body);
      break;
    case OpCode::kCreateContainer:
    case OpCode::kCreateTTL: {
      zk::wire::CreateRequest req;  // createTTL adds a trailing ttl, which is not needed here
      result = fail(zk::wire::decode(body, req) ? Error::kUnimplemented : Error::kMarshallingError);
      break;
    }
    case OpCode::kReconfig:
      result = fail(Error::kReconfigDisabled);
      break;
    default:
      result = fail(Error::kUnimplemented);
      break;
  }
  Txn txn;
  txn.header = {session, xid, zxid, time_ms, op};
  if (std::holds_alternative<ErrorTxn>(result)) txn.header.type = OpCode::kError;
  txn.body = std::move(result);
  return txn;
}

Txn Preprocessor::create_session(SessionId session, int32_t timeout_ms, int64_t zxid,
                                 int64_t time_ms) const {
  return Txn{{session, 0, zxid, time_ms, OpCode::kCreateSession}, CreateSessionTxn{timeout_ms}};
}

Txn Preprocessor::close_session(SessionId session, int32_t xid, int64_t zxid,
                                int64_t time_ms) const {
  return Txn{{session, xid, zxid, time_ms, OpCode::kCloseSession},
             CloseSessionTxn{pending_.ephemerals(session, tree_)}};
}

// Apache's order (PrepRequestProcessor.pRequest2TxnCreate, §6.3).
TxnBody Preprocessor::create(SessionId session, std::string_view body) const {
  zk::wire::CreateRequest req;
  if (!zk::wire::decode(body, req)) return fail(Error::kMarshallingError);
  // Flag 4 (container) makes a plain persistent node under opcodes 1/15. TTL
  // flags 5/6 need extended types, which are off: Apache 3.8.0 answers
  // UNIMPLEMENTED (checked live; the reference's −8 was with them on).
  // Anything else is not a CreateMode.
  if (req.flags == 5 || req.flags == 6) return fail(Error::kUnimplemented);
  if (req.flags < 0 || req.flags > 6) return fail(Error::kBadArguments);
  auto mode = static_cast<zk::wire::CreateMode>(req.flags);
  if (!session_open(session)) return fail(Error::kSessionExpired);
  if (!has_slash_and_no_nul(req.path)) return fail(Error::kBadArguments);
  std::optional<zk::wire::ACLs> acl = fix_acl(req.acl);
  if (!acl) return fail(Error::kInvalidACL);
  std::optional<NodeView> parent = node(apache_parent(req.path));
  if (!parent) return fail(Error::kNoNode);
  std::string path = std::move(req.path);
  if (zk::wire::is_sequential(mode)) path += sequence_suffix(parent->cversion);
  if (!zk::wire::is_valid_path(path)) return fail(Error::kBadArguments);
  if (node(path)) return fail(Error::kNodeExists);
  if (parent->ephemeral_owner != 0) return fail(Error::kNoChildrenForEphemerals);

  CreateTxn txn;
  txn.path = std::move(path);
  txn.data = std::move(req.data);
  txn.acl = std::move(*acl);
  txn.ephemeral = zk::wire::is_ephemeral(mode);
  txn.parent_cversion = plus_one(parent->cversion);
  return txn;
}

// Apache's order: delete-specific path check (§11.1), parent, node, version
// before emptiness.
TxnBody Preprocessor::remove(SessionId session, std::string_view body) const {
  zk::wire::DeleteRequest req;
  if (!zk::wire::decode(body, req)) return fail(Error::kMarshallingError);
  if (!session_open(session)) return fail(Error::kSessionExpired);
  if (!has_slash_and_no_nul(req.path) || DataTree::is_special_path(req.path)) {
    return fail(Error::kBadArguments);
  }
  if (!node(apache_parent(req.path))) return fail(Error::kNoNode);
  std::optional<NodeView> target = node(req.path);
  if (!target) return fail(Error::kNoNode);
  if (!version_matches(target->version, req.version)) return fail(Error::kBadVersion);
  if (target->num_children != 0) return fail(Error::kNotEmpty);
  return DeleteTxn{std::move(req.path)};
}

TxnBody Preprocessor::set_data(SessionId session, std::string_view body) const {
  zk::wire::SetDataRequest req;
  if (!zk::wire::decode(body, req)) return fail(Error::kMarshallingError);
  if (!session_open(session)) return fail(Error::kSessionExpired);
  if (!zk::wire::is_valid_path(req.path)) return fail(Error::kBadArguments);
  std::optional<NodeView> target = node(req.path);
  if (!target) return fail(Error::kNoNode);
  if (!version_matches(target->version, req.version)) return fail(Error::kBadVersion);
  return SetDataTxn{std::move(req.path), std::move(req.data), plus_one(target->version)};
}

TxnBody Preprocessor::set_acl(SessionId session, std::string_view body) const {
  zk::wire::SetACLRequest req;
  if (!zk::wire::decode(body, req)) return fail(Error::kMarshallingError);
  if (!session_open(session)) return fail(Error::kSessionExpired);
  if (!zk::wire::is_valid_path(req.path)) return fail(Error::kBadArguments);
  std::optional<zk::wire::ACLs> acl = fix_acl(req.acl);
  if (!acl) return fail(Error::kInvalidACL);
  std::optional<NodeView> target = node(req.path);
  if (!target) return fail(Error::kNoNode);
  if (!version_matches(target->aversion, req.version)) return fail(Error::kBadVersion);
  return SetACLTxn{std::move(req.path), std::move(*acl), plus_one(target->aversion)};
}

}  // namespace zkd::tree
