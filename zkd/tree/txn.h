// SPDX-License-Identifier: Apache-2.0
// Transactions: the idempotent state changes that prepare() produces and
// apply() performs, in Apache's txn shapes (§14.2 of docs/wire-protocol.md), so
// that the txn log and the Zab proposals (later issues) carry exactly these.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"

namespace zkd::tree {

struct TxnHeader {
  int64_t session_id = 0;  // Apache's clientId
  int32_t cxid = 0;        // the client's xid
  int64_t zxid = 0;
  int64_t time_ms = 0;
  zk::wire::OpCode type = zk::wire::OpCode::kError;
};

struct CreateSessionTxn {
  int32_t timeout_ms = 0;
};
struct CloseSessionTxn {
  std::vector<std::string> paths_to_delete;
};
struct CreateTxn {  // create (1) and create2 (15): the reply shape follows header.type
  std::string path;
  zk::wire::Buffer data;
  zk::wire::ACLs acl;
  bool ephemeral = false;
  int32_t parent_cversion = 0;  // the parent's stored child-creation counter after this create
};
struct CreateContainerTxn {  // createContainer (19): the node is a container (container_kind.h)
  std::string path;
  zk::wire::Buffer data;
  zk::wire::ACLs acl;
  int32_t parent_cversion = 0;
};
struct CreateTTLTxn {  // createTTL (21): a TTL node whose owner encodes `ttl`
  std::string path;
  zk::wire::Buffer data;
  zk::wire::ACLs acl;
  int32_t parent_cversion = 0;
  int64_t ttl = 0;  // ms; valid_ttl(ttl) for every txn prepare() makes
};
struct DeleteTxn {  // delete (2) and the container manager's deleteContainer (20)
  std::string path;
};
struct SetDataTxn {
  std::string path;
  zk::wire::Buffer data;
  int32_t version = 0;  // the new version
};
struct SetACLTxn {
  std::string path;
  zk::wire::ACLs acl;
  int32_t version = 0;  // the new aversion
};
struct CheckVersionTxn {  // check (13): changes nothing
  std::string path;
  int32_t version = 0;  // the version the request named
};
struct ErrorTxn {
  zk::wire::Error err = zk::wire::Error::kOk;
};
struct Txn;
// multi (14): the operations' txns, in request order. Each sub-txn's header
// is the multi's with the operation's own type (kError for an ErrorTxn); no
// sub-txn is a MultiTxn, a CreateSessionTxn or a CloseSessionTxn. A failed
// multi holds one ErrorTxn per operation (§7.2: kOk before the failing one,
// its code, kRuntimeInconsistency after) and changes nothing.
struct MultiTxn {
  std::vector<Txn> ops;
};

using TxnBody =
    std::variant<CreateSessionTxn, CloseSessionTxn, CreateTxn, CreateContainerTxn, CreateTTLTxn,
                 DeleteTxn, SetDataTxn, SetACLTxn, CheckVersionTxn, ErrorTxn, MultiTxn>;

struct Txn {
  TxnHeader header;
  TxnBody body;
};

// Jute encoding of header + body, Apache's layout (for the log and for Zab).
// The record written follows the body's alternative; the type field is
// header.type, so the two must agree (create and create2 share CreateTxn,
// delete and deleteContainer DeleteTxn).
// No TxnDigest is appended. A MultiTxn is Apache's: vector<{int type,
// buffer record}>, the record without a header.
void write_txn(zk::wire::Writer& w, const Txn& txn);
// Decodes header + record; the record is chosen by the header's type. False
// for an unknown type or a truncated record (then `out` is untouched).
// Trailing bytes (such as Apache's TxnDigest) are ignored; a closeSession with
// no record (old logs) reads as an empty paths_to_delete.
bool read_txn(std::string_view bytes, Txn& out);

}  // namespace zkd::tree
