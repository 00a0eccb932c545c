// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/txn.h"

#include <type_traits>

namespace zkd::tree {
namespace {

using zk::wire::OpCode;
using zk::wire::Reader;
using zk::wire::Writer;

void write_body(Writer& w, const CreateSessionTxn& t) { w.int32(t.timeout_ms); }
void write_body(Writer& w, const CloseSessionTxn& t) { w.strings(t.paths_to_delete); }
void write_body(Writer& w, const CreateTxn& t) {
  w.ustring(t.path);
  w.buffer(t.data);
  zk::wire::write_acls(w, t.acl);
  w.boolean(t.ephemeral);
  w.int32(t.parent_cversion);
}
void write_body(Writer& w, const CreateContainerTxn& t) {
  w.ustring(t.path);
  w.buffer(t.data);
  zk::wire::write_acls(w, t.acl);
  w.int32(t.parent_cversion);
}
void write_body(Writer& w, const CreateTTLTxn& t) {
  w.ustring(t.path);
  w.buffer(t.data);
  zk::wire::write_acls(w, t.acl);
  w.int32(t.parent_cversion);
  w.int64(t.ttl);
}
void write_body(Writer& w, const DeleteTxn& t) { w.ustring(t.path); }
void write_body(Writer& w, const SetDataTxn& t) {
  w.ustring(t.path);
  w.buffer(t.data);
  w.int32(t.version);
}
void write_body(Writer& w, const SetACLTxn& t) {
  w.ustring(t.path);
  zk::wire::write_acls(w, t.acl);
  w.int32(t.version);
}
void write_body(Writer& w, const CheckVersionTxn& t) {
  w.ustring(t.path);
  w.int32(t.version);
}
void write_body(Writer& w, const ErrorTxn& t) { w.int32(static_cast<int32_t>(t.err)); }
void write_body(Writer& w, const MultiTxn& t) {
  w.vector_size(t.ops.size());
  for (const Txn& op : t.ops) {
    w.int32(static_cast<int32_t>(op.header.type));
    std::string record;
    Writer rw(record);
    std::visit([&rw](const auto& body) { write_body(rw, body); }, op.body);
    w.buffer(std::string_view(record));
  }
}

bool read_body(Reader& r, const TxnHeader& header, TxnBody& out);

// A multi's sub-txns: each record is read with the multi's header and the
// sub-txn's own type; a nested multi or a session txn is refused.
bool read_multi(Reader& r, const TxnHeader& header, TxnBody& out) {
  MultiTxn multi;
  const int32_t n = r.vector_size(8);
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    Txn op;
    op.header = header;
    op.header.type = static_cast<OpCode>(r.int32());
    zk::wire::Buffer record = r.buffer();
    if (!r.ok() || !record) return false;
    switch (op.header.type) {
      case OpCode::kMulti:
      case OpCode::kCreateSession:
      case OpCode::kCloseSession:
        return false;
      default:
        break;
    }
    Reader rr(*record);
    if (!read_body(rr, op.header, op.body) || !rr.ok()) return false;
    multi.ops.push_back(std::move(op));
  }
  out = std::move(multi);
  return r.ok();
}

bool read_body(Reader& r, const TxnHeader& header, TxnBody& out) {
  switch (header.type) {
    case OpCode::kCreateSession:
      out = CreateSessionTxn{r.int32()};
      return true;
    case OpCode::kCloseSession: {
      CloseSessionTxn t;
      // Old logs carry no record for closeSession (§14.2).
      if (r.remaining() > 0) t.paths_to_delete = r.strings();
      out = std::move(t);
      return true;
    }
    case OpCode::kCreate:
    case OpCode::kCreate2: {
      CreateTxn t;
      t.path = r.ustring();
      t.data = r.buffer();
      t.acl = zk::wire::read_acls(r);
      t.ephemeral = r.boolean();
      t.parent_cversion = r.int32();
      out = std::move(t);
      return true;
    }
    case OpCode::kCreateContainer: {
      CreateContainerTxn t;
      t.path = r.ustring();
      t.data = r.buffer();
      t.acl = zk::wire::read_acls(r);
      t.parent_cversion = r.int32();
      out = std::move(t);
      return true;
    }
    case OpCode::kCreateTTL: {
      CreateTTLTxn t;
      t.path = r.ustring();
      t.data = r.buffer();
      t.acl = zk::wire::read_acls(r);
      t.parent_cversion = r.int32();
      t.ttl = r.int64();
      out = std::move(t);
      return true;
    }
    case OpCode::kDelete:
    case OpCode::kDeleteContainer:
      out = DeleteTxn{r.ustring()};
      return true;
    case OpCode::kSetData:
    case OpCode::kReconfig: {  // Apache's reconfig txn is a SetDataTxn of /zookeeper/config
      SetDataTxn t;
      t.path = r.ustring();
      t.data = r.buffer();
      t.version = r.int32();
      out = std::move(t);
      return true;
    }
    case OpCode::kSetACL: {
      SetACLTxn t;
      t.path = r.ustring();
      t.acl = zk::wire::read_acls(r);
      t.version = r.int32();
      out = std::move(t);
      return true;
    }
    case OpCode::kCheck: {
      CheckVersionTxn t;
      t.path = r.ustring();
      t.version = r.int32();
      out = std::move(t);
      return true;
    }
    case OpCode::kError:
      out = ErrorTxn{static_cast<zk::wire::Error>(r.int32())};
      return true;
    case OpCode::kMulti:
      return read_multi(r, header, out);
    default:
      return false;
  }
}

}  // namespace

void write_txn(Writer& w, const Txn& txn) {
  w.int64(txn.header.session_id);
  w.int32(txn.header.cxid);
  w.int64(txn.header.zxid);
  w.int64(txn.header.time_ms);
  w.int32(static_cast<int32_t>(txn.header.type));
  std::visit([&w](const auto& body) { write_body(w, body); }, txn.body);
}

bool read_txn(std::string_view bytes, Txn& out) {
  Reader r(bytes);
  Txn txn;
  txn.header.session_id = r.int64();
  txn.header.cxid = r.int32();
  txn.header.zxid = r.int64();
  txn.header.time_ms = r.int64();
  txn.header.type = static_cast<OpCode>(r.int32());
  if (!r.ok() || !read_body(r, txn.header, txn.body) || !r.ok()) return false;
  out = std::move(txn);
  return true;
}

}  // namespace zkd::tree
