// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/preprocessor.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "libzk/wire/multi.h"
#include "libzk/wire/path.h"
#include "libzk/wire/records.h"
#include "zkd/tree/acl_check.h"
#include "zkd/tree/acl_fixup.h"

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

template <typename... F>
struct Overloaded : F... {
  using F::operator()...;
};
// Spelled out for clang 14, which has no deduction for aggregates (P1816).
template <typename... F>
Overloaded(F...) -> Overloaded<F...>;

// `body` decoded as a Request and handed to `then`; MARSHALLINGERROR when it
// does not decode.
template <typename Request, typename Then>
TxnBody with_decoded(std::string_view body, Then&& then) {
  Request req;
  if (!zk::wire::decode(body, req)) return fail(Error::kMarshallingError);
  return then(std::move(req));
}

// What a multi (14) may hold (§7.1): creates (1, 15, 19, 21), delete,
// setData, check.
bool multi_may_hold(const zk::wire::MultiOp& op) {
  return std::holds_alternative<zk::wire::CreateRequest>(op.request) ||
         std::holds_alternative<zk::wire::CreateTTLRequest>(op.request) ||
         op.type == OpCode::kDelete || op.type == OpCode::kSetData || op.type == OpCode::kCheck;
}

// A create's flags, or nullptr when `op` is no create.
const int32_t* create_flags(const zk::wire::MultiOp& op) {
  if (const auto* c = std::get_if<zk::wire::CreateRequest>(&op.request)) return &c->flags;
  if (const auto* c = std::get_if<zk::wire::CreateTTLRequest>(&op.request)) return &c->flags;
  return nullptr;
}

// A failed multi of `n` operations whose operation `failed` gave `err`.
MultiTxn rolled_back(const TxnHeader& header, size_t failed, Error err, size_t n) {
  MultiTxn out;
  for (size_t i = 0; i < n; ++i) {
    Txn txn;
    txn.header = header;
    txn.header.type = OpCode::kError;
    txn.body = ErrorTxn{i < failed ? Error::kOk : i == failed ? err : Error::kRuntimeInconsistency};
    out.ops.push_back(std::move(txn));
  }
  return out;
}

// A createTTL request without its ttl.
zk::wire::CreateRequest as_create(zk::wire::CreateTTLRequest req) {
  return {std::move(req.path), std::move(req.data), std::move(req.acl), req.flags};
}

int64_t length_of(const zk::wire::Buffer& data) {
  return data ? static_cast<int64_t>(data->size()) : 0;
}

bool is_ttl_flags(int32_t flags) { return flags == 5 || flags == 6; }

std::string sequence_suffix(int32_t counter) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%010d", counter);
  return buf;
}

}  // namespace

Txn Preprocessor::reconfig(SessionId session, const AuthIds& caller_ids, int32_t xid,
                           std::string config, int64_t zxid, int64_t time_ms) const {
  Txn txn;
  txn.header = {session, xid, zxid, time_ms, OpCode::kReconfig};
  const Node* node = tree_.find("/zookeeper/config");
  if (node == nullptr || !permitted(node->acl(), zk::wire::perms::kWrite, caller_ids)) {
    txn.header.type = OpCode::kError;
    txn.body = fail(Error::kNoAuth);
    return txn;
  }
  txn.body = SetDataTxn{"/zookeeper/config", zk::wire::Buffer(std::move(config)), -1};
  return txn;
}

Txn Preprocessor::write(SessionId session, const AuthIds& caller_ids, int32_t xid, OpCode op,
                        std::string_view body, int64_t zxid, int64_t time_ms) const {
  if (op == OpCode::kCloseSession) return close_session(session, xid, zxid, time_ms);
  const Caller caller{session, caller_ids};
  Txn txn;
  txn.header = {session, xid, zxid, time_ms, op};
  txn.body = op == OpCode::kMulti ? multi(caller, txn.header, body) : operation(caller, op, body);
  if (std::holds_alternative<ErrorTxn>(txn.body)) txn.header.type = OpCode::kError;
  return txn;
}

TxnBody Preprocessor::operation(const Caller& caller, OpCode op, std::string_view body) const {
  switch (op) {
    case OpCode::kCreate:
    case OpCode::kCreate2:
    case OpCode::kCreateContainer:
      return with_decoded<zk::wire::CreateRequest>(
          body, [&](auto req) { return create(caller, op, std::move(req), -1); });
    case OpCode::kCreateTTL:
      return with_decoded<zk::wire::CreateTTLRequest>(body, [&](auto req) {
        const int64_t ttl = req.ttl;
        return create(caller, op, as_create(std::move(req)), ttl);
      });
    case OpCode::kDeleteContainer:
      return delete_container(caller, std::string(body));
    case OpCode::kDelete:
      return with_decoded<zk::wire::DeleteRequest>(
          body, [&](auto req) { return remove(caller, std::move(req)); });
    case OpCode::kSetData:
      return with_decoded<zk::wire::SetDataRequest>(
          body, [&](auto req) { return set_data(caller, std::move(req)); });
    case OpCode::kSetACL:
      return with_decoded<zk::wire::SetACLRequest>(
          body, [&](auto req) { return set_acl(caller, std::move(req)); });
    case OpCode::kCheck:
      return with_decoded<zk::wire::CheckVersionRequest>(
          body, [&](auto req) { return check(caller, std::move(req)); });
    case OpCode::kReconfig:
      return fail(Error::kReconfigDisabled);
    default:
      return fail(Error::kUnimplemented);
  }
}

// Apache's PrepRequestProcessor for multi: the operations are prepared in
// order against an overlay holding the effects of the earlier ones; at the
// first failure every operation becomes an error sub-txn (§7.2).
TxnBody Preprocessor::multi(const Caller& caller, const TxnHeader& header,
                            std::string_view body) const {
  std::vector<zk::wire::MultiOp> ops;
  if (!zk::wire::decode_multi_request(body, ops)) return fail(Error::kMarshallingError);
  if (!std::all_of(ops.begin(), ops.end(), multi_may_hold)) return fail(Error::kMarshallingError);

  PendingChanges overlay(&pending_);
  Preprocessor step(tree_, sessions_, overlay, quota_);
  MultiTxn out;
  for (size_t i = 0; i < ops.size(); ++i) {
    Txn txn;
    txn.header = header;
    txn.header.type = ops[i].type;
    // Apache builds a multi's create from its flags, whatever its header
    // type (Op.create): container flags make a container (19), TTL flags in
    // a createTTL record a TTL node (21; the ttl counts only then) and in a
    // plain create record fail the whole request (only once reached), others
    // a create (1). A create2 stays 15 with its Stat, as in 3.8.4+
    // (ZOOKEEPER-4026; 3.8.0 answers a create, which the C client misreads).
    if (const int32_t* flags = create_flags(ops[i])) {
      const bool ttl_record = std::holds_alternative<zk::wire::CreateTTLRequest>(ops[i].request);
      if (is_ttl_flags(*flags) && !ttl_record) return fail(Error::kMarshallingError);
      if (*flags == 4) {
        txn.header.type = OpCode::kCreateContainer;
      } else if (is_ttl_flags(*flags)) {
        txn.header.type = OpCode::kCreateTTL;
      } else if (txn.header.type != OpCode::kCreate2) {
        txn.header.type = OpCode::kCreate;
      }
    }
    const OpCode type = txn.header.type;
    txn.body =
        std::visit(Overloaded{
                       [&](zk::wire::CreateRequest& req) -> TxnBody {
                         return step.create(caller, type, std::move(req), -1);
                       },
                       [&](zk::wire::CreateTTLRequest& req) -> TxnBody {
                         const int64_t ttl = type == OpCode::kCreateTTL ? req.ttl : -1;
                         return step.create(caller, type, as_create(std::move(req)), ttl);
                       },
                       [&](zk::wire::DeleteRequest& req) -> TxnBody {
                         return step.remove(caller, std::move(req));
                       },
                       [&](zk::wire::SetDataRequest& req) -> TxnBody {
                         return step.set_data(caller, std::move(req));
                       },
                       [&](zk::wire::CheckVersionRequest& req) -> TxnBody {
                         return step.check(caller, std::move(req));
                       },
                       [&](zk::wire::PathWatchRequest&) -> TxnBody {  // refused by multi_may_hold
                         return fail(Error::kMarshallingError);
                       },
                   },
                   ops[i].request);
    if (const auto* err = std::get_if<ErrorTxn>(&txn.body))
      return rolled_back(header, i, err->err, ops.size());
    overlay.add(txn, tree_);
    out.ops.push_back(std::move(txn));
  }
  return out;
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
TxnBody Preprocessor::create(const Caller& caller, OpCode op, zk::wire::CreateRequest req,
                             int64_t ttl) const {
  // The flags must be a CreateMode; TTL modes need extended types (Apache
  // 3.8.0 answers UNIMPLEMENTED without them, checked live). Then Apache's
  // EphemeralType.validateTTL: a TTL mode needs a valid ttl, any other mode
  // none (ttl < 0), which also refuses TTL flags under opcodes 1/15/19.
  // Flag 4 (container) under opcodes 1/15 makes a plain persistent node.
  if (req.flags < 0 || req.flags > 6) return fail(Error::kBadArguments);
  auto mode = static_cast<zk::wire::CreateMode>(req.flags);
  const bool ttl_mode = is_ttl_flags(req.flags);
  if (ttl_mode && !tree_.extended_types()) return fail(Error::kUnimplemented);
  if (ttl_mode ? !valid_ttl(ttl) : ttl >= 0) return fail(Error::kBadArguments);
  // Apache 3.8.0 takes createTTL with a non-TTL mode and ttl < 0, logs it
  // and crashes applying it (§6.3): refused here.
  if (op == OpCode::kCreateTTL && !ttl_mode) return fail(Error::kBadArguments);
  if (!session_open(caller.session)) return fail(Error::kSessionExpired);
  if (!has_slash_and_no_nul(req.path)) return fail(Error::kBadArguments);
  std::optional<zk::wire::ACLs> acl = fixup_acl(req.acl, caller.ids);
  if (!acl) return fail(Error::kInvalidACL);
  std::optional<NodeView> parent = node(apache_parent(req.path));
  if (!parent) return fail(Error::kNoNode);
  if (!permitted(parent->acl, zk::wire::perms::kCreate, caller.ids)) return fail(Error::kNoAuth);
  std::string path = std::move(req.path);
  if (zk::wire::is_sequential(mode)) path += sequence_suffix(parent->cversion);
  if (!zk::wire::is_valid_path(path)) return fail(Error::kBadArguments);
  if (node(path)) return fail(Error::kNodeExists);
  // Containers and TTL nodes may have children.
  if (parent->kind == NodeKind::kEphemeral) return fail(Error::kNoChildrenForEphemerals);
  if (Error err = quota(path, length_of(req.data), 1); err != Error::kOk) {
    return fail(err);
  }

  const int32_t parent_cversion = plus_one(parent->cversion);
  if (op == OpCode::kCreateContainer) {
    return CreateContainerTxn{std::move(path), std::move(req.data), std::move(*acl),
                              parent_cversion};
  }
  if (op == OpCode::kCreateTTL) {
    return CreateTTLTxn{std::move(path), std::move(req.data), std::move(*acl), parent_cversion,
                        ttl};
  }
  return CreateTxn{std::move(path), std::move(req.data), std::move(*acl),
                   zk::wire::is_ephemeral(mode), parent_cversion};
}

// Apache's deleteContainer: the path checks of delete, parent, node, then
// NOTEMPTY for a node that gained children. Apache refuses a session's
// ephemeral with BADVERSION and would delete any other node; zkd refuses
// every node that is no container or TTL node so, and any session but 0
// (the container manager's) with BADARGUMENTS.
TxnBody Preprocessor::delete_container(const Caller& caller, std::string path) const {
  if (caller.session != 0) return fail(Error::kBadArguments);
  if (!has_slash_and_no_nul(path) || is_special_path(path)) {
    return fail(Error::kBadArguments);
  }
  if (!node(apache_parent(path))) return fail(Error::kNoNode);
  std::optional<NodeView> target = node(path);
  if (!target) return fail(Error::kNoNode);
  if (target->num_children != 0) return fail(Error::kNotEmpty);
  if (target->kind != NodeKind::kContainer && target->kind != NodeKind::kTtl) {
    return fail(Error::kBadVersion);
  }
  return DeleteTxn{std::move(path)};
}

// Apache's order: delete-specific path check (§11.1), parent, DELETE on the
// parent, node, version before emptiness.
TxnBody Preprocessor::remove(const Caller& caller, zk::wire::DeleteRequest req) const {
  if (!session_open(caller.session)) return fail(Error::kSessionExpired);
  if (!has_slash_and_no_nul(req.path) || is_special_path(req.path)) {
    return fail(Error::kBadArguments);
  }
  std::optional<NodeView> parent = node(apache_parent(req.path));
  if (!parent) return fail(Error::kNoNode);
  if (!permitted(parent->acl, zk::wire::perms::kDelete, caller.ids)) return fail(Error::kNoAuth);
  std::optional<NodeView> target = node(req.path);
  if (!target) return fail(Error::kNoNode);
  if (!version_matches(target->version, req.version)) return fail(Error::kBadVersion);
  if (target->num_children != 0) return fail(Error::kNotEmpty);
  return DeleteTxn{std::move(req.path)};
}

TxnBody Preprocessor::set_data(const Caller& caller, zk::wire::SetDataRequest req) const {
  if (!session_open(caller.session)) return fail(Error::kSessionExpired);
  if (!zk::wire::is_valid_path(req.path)) return fail(Error::kBadArguments);
  std::optional<NodeView> target = node(req.path);
  if (!target) return fail(Error::kNoNode);
  if (!permitted(target->acl, zk::wire::perms::kWrite, caller.ids)) return fail(Error::kNoAuth);
  if (Error err = quota(req.path, length_of(req.data) - target->data_length, 0);
      err != Error::kOk) {
    return fail(err);
  }
  if (!version_matches(target->version, req.version)) return fail(Error::kBadVersion);
  return SetDataTxn{std::move(req.path), std::move(req.data), plus_one(target->version)};
}

// Apache's order: the new ACL is fixed up (INVALIDACL) before the node is
// looked up; ADMIN on the node before the version.
TxnBody Preprocessor::set_acl(const Caller& caller, zk::wire::SetACLRequest req) const {
  if (!session_open(caller.session)) return fail(Error::kSessionExpired);
  if (!zk::wire::is_valid_path(req.path)) return fail(Error::kBadArguments);
  std::optional<zk::wire::ACLs> acl = fixup_acl(req.acl, caller.ids);
  if (!acl) return fail(Error::kInvalidACL);
  std::optional<NodeView> target = node(req.path);
  if (!target) return fail(Error::kNoNode);
  if (!permitted(target->acl, zk::wire::perms::kAdmin, caller.ids)) return fail(Error::kNoAuth);
  if (!version_matches(target->aversion, req.version)) return fail(Error::kBadVersion);
  return SetACLTxn{std::move(req.path), std::move(*acl), plus_one(target->aversion)};
}

// Apache's order for check: session, path, node, READ on it, version.
// Nothing changes.
TxnBody Preprocessor::check(const Caller& caller, zk::wire::CheckVersionRequest req) const {
  if (!session_open(caller.session)) return fail(Error::kSessionExpired);
  if (!zk::wire::is_valid_path(req.path)) return fail(Error::kBadArguments);
  std::optional<NodeView> target = node(req.path);
  if (!target) return fail(Error::kNoNode);
  if (!permitted(target->acl, zk::wire::perms::kRead, caller.ids)) return fail(Error::kNoAuth);
  if (!version_matches(target->version, req.version)) return fail(Error::kBadVersion);
  return CheckVersionTxn{std::move(req.path), req.version};
}

Error Preprocessor::quota(std::string_view path, int64_t bytes_diff, int64_t count_diff) const {
  if (quota_ == nullptr) return Error::kOk;
  return check_quota(*quota_, tree_, pending_, path, bytes_diff, count_diff);
}

}  // namespace zkd::tree
