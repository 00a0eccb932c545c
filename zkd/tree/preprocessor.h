// Request -> txn, as Apache's PrepRequestProcessor does it: decodes the
// request, validates it against the current tree in Apache's order (§6.3,
// §11.1 of the wire reference), computes versions and sequential names, and
// yields either the real change or an ErrorTxn carrying the error code (which
// still consumes its zxid). Reads the tree and the session table; changes
// nothing.
//
// Contract: every txn prepared earlier has been applied already (standalone
// mode). Pipelining under Zab will need an overlay of not-yet-applied changes.
//
// Not done yet (see the report of the issue that added this): ACL enforcement
// (NOAUTH), auth-scheme ACL expansion and per-scheme ACL validation, quotas,
// containers, TTL nodes, multi and check (they become UNIMPLEMENTED).
#pragma once

#include <cstdint>
#include <string_view>

#include "libzk/wire/protocol.h"
#include "zkd/tree/data_tree.h"
#include "zkd/tree/ids.h"
#include "zkd/tree/session_table.h"
#include "zkd/tree/txn.h"

namespace zkd::tree {

class Preprocessor {
 public:
  // Both must outlive this object.
  Preprocessor(const DataTree& tree, const SessionTable& sessions)
      : tree_(tree), sessions_(sessions) {}

  // create (1), create2 (15), delete (2), setData (5), setACL (7) and
  // closeSession (-11); createContainer (19), createTTL (21), multi (14),
  // check (13) and other opcodes give UNIMPLEMENTED, reconfig (16)
  // RECONFIGDISABLED. A write from a session not in the table gives
  // SESSIONEXPIRED (Apache never lets such a request reach this stage).
  Txn write(SessionId session, int32_t xid, zk::wire::OpCode op, std::string_view body,
            int64_t zxid, int64_t time_ms) const;
  Txn create_session(SessionId session, int32_t timeout_ms, int64_t zxid, int64_t time_ms) const;
  // Deletes the session's ephemeral nodes, listed in sorted order.
  Txn close_session(SessionId session, int32_t xid, int64_t zxid, int64_t time_ms) const;

 private:
  TxnBody create(SessionId session, std::string_view body) const;
  TxnBody remove(SessionId session, std::string_view body) const;
  TxnBody set_data(SessionId session, std::string_view body) const;
  TxnBody set_acl(SessionId session, std::string_view body) const;

  const DataTree& tree_;
  const SessionTable& sessions_;
};

}  // namespace zkd::tree
