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

std::string sequence_suffix(int32_t counter) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%010d", counter);
  return buf;
}

}  // namespace

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
      return with_decoded<zk::wire::CreateRequest>(
          body, [&](auto req) { return create(caller, std::move(req)); });
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
    case OpCode::kCreateContainer:
    case OpCode::kCreateTTL:
      // createTTL adds a trailing ttl, which is not needed to decide this.
      return with_decoded<zk::wire::CreateRequest>(
          body, [](auto) -> TxnBody { return fail(Error::kUnimplemented); });
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
  Preprocessor step(tree_, sessions_, overlay);
  MultiTxn out;
  for (size_t i = 0; i < ops.size(); ++i) {
    Txn txn;
    txn.header = header;
    txn.header.type = ops[i].type;
    // Apache builds a multi's create from its flags, whatever its header
    // type: TTL flags fail the whole request while extended types are off
    // (only once reached), container flags make a container (not yet here),
    // others a create (1). A create2 stays 15 with its Stat, as in 3.8.4+
    // (ZOOKEEPER-4026; 3.8.0 answers a create, which the C client misreads).
    if (const int32_t* flags = create_flags(ops[i])) {
      if (*flags == 5 || *flags == 6) return fail(Error::kMarshallingError);
      if (*flags == 4) return rolled_back(header, i, Error::kUnimplemented, ops.size());
      if (txn.header.type != OpCode::kCreate2) txn.header.type = OpCode::kCreate;
    }
    txn.body = std::visit(
        Overloaded{
            [&](zk::wire::CreateRequest& req) -> TxnBody {
              return step.create(caller, std::move(req));
            },
            [&](zk::wire::CreateTTLRequest& req) -> TxnBody {  // the ttl is ignored
              return step.create(caller,
                                 zk::wire::CreateRequest{std::move(req.path), std::move(req.data),
                                                         std::move(req.acl), req.flags});
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
TxnBody Preprocessor::create(const Caller& caller, zk::wire::CreateRequest req) const {
  // Flag 4 (container) makes a plain persistent node under opcodes 1/15. TTL
  // flags 5/6 need extended types, which are off: Apache 3.8.0 answers
  // UNIMPLEMENTED (checked live; the reference's −8 was with them on).
  // Anything else is not a CreateMode.
  if (req.flags == 5 || req.flags == 6) return fail(Error::kUnimplemented);
  if (req.flags < 0 || req.flags > 6) return fail(Error::kBadArguments);
  auto mode = static_cast<zk::wire::CreateMode>(req.flags);
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
  if (parent->ephemeral_owner != 0) return fail(Error::kNoChildrenForEphemerals);

  CreateTxn txn;
  txn.path = std::move(path);
  txn.data = std::move(req.data);
  txn.acl = std::move(*acl);
  txn.ephemeral = zk::wire::is_ephemeral(mode);
  txn.parent_cversion = plus_one(parent->cversion);
  return txn;
}

// Apache's order: delete-specific path check (§11.1), parent, DELETE on the
// parent, node, version before emptiness.
TxnBody Preprocessor::remove(const Caller& caller, zk::wire::DeleteRequest req) const {
  if (!session_open(caller.session)) return fail(Error::kSessionExpired);
  if (!has_slash_and_no_nul(req.path) || DataTree::is_special_path(req.path)) {
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

}  // namespace zkd::tree
