// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/applier.h"

#include <algorithm>
#include <string>
#include <utility>

#include "libzk/wire/multi.h"

namespace zkd::tree {
namespace {

using zk::wire::encode;
using zk::wire::Error;
using zk::wire::OpCode;

ApplyResult reply(const TxnHeader& header, Error err, std::string body = {}) {
  ApplyResult result;
  result.response.err = err;
  result.response.zxid = header.zxid;
  if (err == Error::kOk) result.response.body = std::move(body);
  return result;
}

}  // namespace

ApplyResult Applier::apply(const Txn& txn) {
  const TxnHeader& h = txn.header;
  struct Visitor {
    Applier& self;
    const TxnHeader& h;
    ApplyResult operator()(const CreateSessionTxn& t) {
      self.sessions_.open(h.session_id, t.timeout_ms);
      return reply(h, Error::kOk);
    }
    ApplyResult operator()(const CloseSessionTxn& t) { return self.close_session(h, t); }
    ApplyResult operator()(const CreateTxn& t) {
      return self.create(h, t.path, t.data, t.acl, t.ephemeral ? h.session_id : 0,
                         t.parent_cversion);
    }
    ApplyResult operator()(const CreateContainerTxn& t) {
      return self.create(h, t.path, t.data, t.acl, kContainerOwner, t.parent_cversion);
    }
    ApplyResult operator()(const CreateTTLTxn& t) {
      // prepare() never makes an invalid ttl; a log holding one (Apache 3.8.0
      // logs it before crashing, §6.3) makes no node.
      if (!valid_ttl(t.ttl)) return reply(h, Error::kBadArguments);
      return self.create(h, t.path, t.data, t.acl, ttl_owner(t.ttl), t.parent_cversion);
    }
    ApplyResult operator()(const DeleteTxn& t) { return self.remove(h, t); }
    ApplyResult operator()(const SetDataTxn& t) { return self.set_data(h, t); }
    ApplyResult operator()(const SetACLTxn& t) { return self.set_acl(h, t); }
    ApplyResult operator()(const CheckVersionTxn&) { return reply(h, Error::kOk); }
    ApplyResult operator()(const ErrorTxn& t) { return reply(h, t.err); }
    ApplyResult operator()(const MultiTxn& t) { return self.multi(h, t); }
  };
  return std::visit(Visitor{*this, h}, txn.body);
}

// Each sub-txn applied in order at the multi's zxid; the reply is, per
// operation, MultiHeader{type, false, err} and the operation's own reply
// record (which is what a multi result holds, §7.1), an error as
// MultiHeader{-1, false, err} + ErrorResponse{err}; then the terminator.
//
// A multi holding any error txn failed and changes nothing: every other
// operation answers as an error too, kOk before the first failure and
// kRuntimeInconsistency after it (Apache's DataTree.processTxn). zkd's
// preprocessor logs a failed multi that way already (rolled_back);
// Apache's logs keep the real txns of the operations before the failure.
ApplyResult Applier::multi(const TxnHeader& h, const MultiTxn& t) {
  const auto is_error = [](const Txn& op) { return std::holds_alternative<ErrorTxn>(op.body); };
  const bool failed = std::any_of(t.ops.begin(), t.ops.end(), is_error);
  bool after_failure = false;
  std::string body;
  zk::wire::Writer w(body);
  ApplyResult result;
  for (const Txn& logged : t.ops) {
    after_failure = after_failure || is_error(logged);
    Txn rolled_back;
    if (failed && !is_error(logged)) {
      rolled_back.header = logged.header;
      rolled_back.header.type = OpCode::kError;
      rolled_back.body = ErrorTxn{after_failure ? Error::kRuntimeInconsistency : Error::kOk};
    }
    const Txn& op = failed && !is_error(logged) ? rolled_back : logged;
    ApplyResult step = apply(op);
    // Containers and TTL nodes answer as create2 (§7.1).
    OpCode type = op.header.type;
    if (type == OpCode::kCreateContainer || type == OpCode::kCreateTTL) type = OpCode::kCreate2;
    zk::wire::write_multi_result(w, type, step.response.err, step.response.body);
    for (Notification& n : step.notifications) result.notifications.push_back(std::move(n));
  }
  zk::wire::write_multi_end(w);
  result.response = reply(h, Error::kOk, std::move(body)).response;
  return result;
}

ApplyResult Applier::create(const TxnHeader& h, const std::string& path,
                            const zk::wire::Buffer& data, const zk::wire::ACLs& acl, int64_t owner,
                            int32_t parent_cversion) {
  Error err = tree_.create(path, data, acl, owner, parent_cversion, h.zxid, h.time_ms);
  if (err != Error::kOk) {
    // A replayed create meeting its node (the fuzzy snapshot caught it):
    // repair the parent's counter, which the snapshot may hold from before
    // the create (Apache's FileTxnSnapLog does this for opcode 1 only, which
    // leaves create2 replays short; we do it for both).
    if (err == Error::kNodeExists) {
      tree_.raise_cversion(apache_parent(path), parent_cversion, h.zxid);
    }
    return reply(h, err);
  }
  std::string body;
  if (h.type == OpCode::kCreate) {
    body = encode(zk::wire::PathRecord{path});
  } else {
    body = encode(zk::wire::Create2Response{path, client_stat(*tree_.find(path))});
  }
  ApplyResult result = reply(h, Error::kOk, std::move(body));
  const std::string_view parent = apache_parent(path);
  watches_.node_created(path, acl_if_watched(path, path),
                        acl_if_watched(event_path_of_parent(parent), parent), result.notifications);
  return result;
}

ApplyResult Applier::remove(const TxnHeader& h, const DeleteTxn& t) {
  ApplyResult result;
  Error err = delete_node(t.path, h.zxid, result.notifications);
  result.response = reply(h, err).response;
  return result;
}

Error Applier::delete_node(const std::string& path, int64_t zxid, std::vector<Notification>& out) {
  // The node's ACL outlives it only when its own events will carry it.
  zk::wire::ACLs acl = acl_if_watched(path, path);
  Error err = tree_.remove(path, zxid);
  const std::string_view parent = apache_parent(path);
  if (err == Error::kOk) {
    watches_.node_deleted(path, acl, acl_if_watched(event_path_of_parent(parent), parent), out);
  }
  return err;
}

// What an event about a missing or unwatched node carries.
const zk::wire::ACLs kNoAcl;

const zk::wire::ACLs& Applier::acl_of(std::string_view path) const {
  const Node* node = tree_.find(path);
  return node != nullptr ? node->acl() : kNoAcl;
}

const zk::wire::ACLs& Applier::acl_if_watched(std::string_view event_path,
                                              std::string_view path) const {
  return watches_.watched(event_path) ? acl_of(path) : kNoAcl;
}

ApplyResult Applier::set_data(const TxnHeader& h, const SetDataTxn& t) {
  Error err = tree_.set_data(t.path, t.data, t.version, h.zxid, h.time_ms);
  if (err != Error::kOk) return reply(h, err);
  const Node& node = *tree_.find(t.path);
  // reconfig is answered as a getData of the new configuration.
  ApplyResult result =
      h.type == zk::wire::OpCode::kReconfig
          ? reply(h, Error::kOk, encode(zk::wire::GetDataResponse{t.data, client_stat(node)}))
          : reply(h, Error::kOk, encode(client_stat(node)));
  watches_.data_changed(t.path, node.acl(), result.notifications);
  return result;
}

ApplyResult Applier::set_acl(const TxnHeader& h, const SetACLTxn& t) {
  Error err = tree_.set_acl(t.path, t.acl, t.version);
  if (err != Error::kOk) return reply(h, err);
  return reply(h, Error::kOk, encode(client_stat(*tree_.find(t.path))));
}

// Apache's killSession: the txn's paths in order, then any ephemeral of the
// session the txn did not list. As in Apache, a listed path is deleted
// whoever owns it now and, when missing, only its parent's pzxid moves (as a
// delete txn's would). Live, prepare() lists only the session's own nodes; a
// listed node owned by another session can only be met in a replay over a
// fuzzy snapshot that caught a later incarnation, whose create comes later
// in the log, so deleting it is what converges.
ApplyResult Applier::close_session(const TxnHeader& h, const CloseSessionTxn& t) {
  ApplyResult result = reply(h, Error::kOk);
  // The txn's paths, then any ephemeral left (Apache's killSession).
  const auto remove = [&](const std::string& path) {
    const bool deleted = delete_node(path, h.zxid, result.notifications) == Error::kOk;
    result.closed_ephemerals.emplace_back(path, deleted);
  };
  for (const std::string& path : t.paths_to_delete) remove(path);
  for (const std::string& path : tree_.kinds().ephemerals(h.session_id)) remove(path);
  sessions_.close(h.session_id);
  return result;
}

}  // namespace zkd::tree
