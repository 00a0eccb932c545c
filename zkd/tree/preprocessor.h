// SPDX-License-Identifier: Apache-2.0
// Request -> txn, as Apache's PrepRequestProcessor does it: decodes the
// request, validates it against the current tree in Apache's order (§6.3,
// §11.1 of docs/wire-protocol.md), computes versions and sequential names, and
// yields either the real change or an ErrorTxn carrying the error code (which
// still consumes its zxid). Reads the tree and the session table as they will
// be once every pending txn is applied (the PendingChanges overlay); changes
// nothing (the caller records the txn in the overlay).
//
// A multi (§7) prepares its operations in order, each against the tree as
// the ones before it leave it (an overlay of its own above the pending
// changes); the first failure turns the whole multi into error sub-txns.
//
// ACLs (§10.4, §10.5): each operation checks the caller's ids against the
// node Apache checks (acl_check.h) at Apache's point in the validation order,
// and create / setACL store the ACL fixed up for the caller (acl_fixup.h).
// A multi checks each operation's own permission.
//
// Containers and TTL nodes (§6.4): createContainer (19) and createTTL (21)
// make them whatever the flags say (the flags still decide sequential names
// and validation); TTL nodes need extended types (DataTree::extended_types).
// deleteContainer (20) is the container manager's, never a client's.
//
// Quotas (quota_check.h): with enforcement on, create and setData check the
// limits of the quota covering the node after the ephemeral-parent check
// (create) and after the ACL check, before the version (setData).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "libzk/wire/protocol.h"
#include "zkd/tree/auth_ids.h"
#include "zkd/tree/data_tree.h"
#include "zkd/tree/ids.h"
#include "zkd/tree/pending_changes.h"
#include "zkd/tree/quota_check.h"
#include "zkd/tree/session_table.h"
#include "zkd/tree/txn.h"

namespace zkd::tree {

class Preprocessor {
 public:
  // All must outlive this object; no `quota` means no quota enforcement.
  Preprocessor(const DataTree& tree, const SessionTable& sessions, const PendingChanges& pending,
               const QuotaPolicy* quota = nullptr)
      : tree_(tree), sessions_(sessions), pending_(pending), quota_(quota) {}

  // create (1), create2 (15), createContainer (19), createTTL (21), delete
  // (2), setData (5), setACL (7), check (13), multi (14), closeSession (-11)
  // and deleteContainer (20: body = the path's bytes; only from session 0,
  // the container manager, else BADARGUMENTS); other opcodes give
  // UNIMPLEMENTED, reconfig (16) RECONFIGDISABLED. A multi whose body does
  // not decode, or holds an operation a multi may not hold (a read, an
  // unknown type, TTL flags in a plain create record), is MARSHALLINGERROR
  // as a whole. A write from a session not in the table gives SESSIONEXPIRED
  // (Apache never lets such a request reach this stage).
  // `caller`: the ids of the connection the request came on, which ACLs are
  // checked against.
  Txn write(SessionId session, const AuthIds& caller, int32_t xid, zk::wire::OpCode op,
            std::string_view body, int64_t zxid, int64_t time_ms) const;
  Txn create_session(SessionId session, int32_t timeout_ms, int64_t zxid, int64_t time_ms) const;
  // Deletes the session's ephemeral nodes, listed in sorted order.
  Txn close_session(SessionId session, int32_t xid, int64_t zxid, int64_t time_ms) const;
  // Apache's reconfig txn: `config` becomes the data of /zookeeper/config
  // (stored version -1), if the caller may write that node (its ACL is
  // read-only for everyone: a superuser, or skipACL); else NOAUTH.
  Txn reconfig(SessionId session, const AuthIds& caller_ids, int32_t xid, std::string config,
               int64_t zxid, int64_t time_ms) const;

 private:
  // Who sends the request being prepared.
  struct Caller {
    SessionId session;
    const AuthIds& ids;
  };
  // One operation, decoded: its txn, or an ErrorTxn.
  TxnBody operation(const Caller& caller, zk::wire::OpCode op, std::string_view body) const;
  // A create of any kind: `op` (1, 15, 19 or 21) decides the kind of node
  // and the txn; `ttl` is the request's (-1 for opcodes without one).
  TxnBody create(const Caller& caller, zk::wire::OpCode op, zk::wire::CreateRequest req,
                 int64_t ttl) const;
  TxnBody delete_container(const Caller& caller, std::string path) const;
  TxnBody remove(const Caller& caller, zk::wire::DeleteRequest req) const;
  TxnBody set_data(const Caller& caller, zk::wire::SetDataRequest req) const;
  TxnBody set_acl(const Caller& caller, zk::wire::SetACLRequest req) const;
  TxnBody check(const Caller& caller, zk::wire::CheckVersionRequest req) const;
  TxnBody multi(const Caller& caller, const TxnHeader& header, std::string_view body) const;
  std::optional<NodeView> node(std::string_view path) const { return pending_.node(path, tree_); }
  bool session_open(SessionId session) const { return pending_.session_open(session, sessions_); }
  zk::wire::Error quota(std::string_view path, int64_t bytes_diff, int64_t count_diff) const;

  const DataTree& tree_;
  const SessionTable& sessions_;
  const PendingChanges& pending_;
  const QuotaPolicy* quota_;
};

}  // namespace zkd::tree
