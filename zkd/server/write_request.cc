// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/write_request.h"

#include "libzk/wire/jute.h"

namespace zkd::server {

namespace {
// 2: the caller's auth ids follow the touches.
constexpr int32_t kVersion = 2;
// A txn header: session id, cxid, zxid, time, type.
constexpr size_t kTxnHeaderSize = 8 + 4 + 8 + 8 + 4;
// What a txn's record may hold beyond its request's body (a create's
// parent cversion and flags), so that the estimate is rarely short.
constexpr size_t kTxnSlack = 16;
// An encoded WriteRequest's fields but the body, touches and ids: version,
// kind, session, xid, op, the body's length, timeout, err and the two counts.
constexpr size_t kRequestFixedSize = 4 + 4 + 8 + 4 + 4 + 4 + 4 + 4 + 4 + 4;
// Room for the caller's ids, which are few and short.
constexpr size_t kIdsRoom = 64;
}  // namespace

std::string encode_write_request(const WriteRequest& request) {
  std::string out;
  // Reserved at once: grown field by field, a 1 KiB body was copied again.
  out.reserve(kRequestFixedSize + request.body.size() + 12 * request.touches.size() + kIdsRoom);
  zk::wire::Writer w(out);
  w.int32(kVersion);
  w.int32(static_cast<int32_t>(request.kind));
  w.int64(request.session);
  w.int32(request.xid);
  w.int32(static_cast<int32_t>(request.op));
  w.buffer(std::string_view(request.body));
  w.int32(request.timeout_ms);
  w.int32(static_cast<int32_t>(request.err));
  w.int32(static_cast<int32_t>(request.touches.size()));
  for (const auto& [session, timeout] : request.touches) {
    w.int64(session);
    w.int32(timeout);
  }
  w.vector_size(request.auth.added().size());
  for (const zk::wire::Id& id : request.auth.added()) id.write(w);
  return out;
}

std::optional<WriteRequest> decode_write_request(std::string_view bytes) {
  zk::wire::Reader r(bytes);
  WriteRequest request;
  if (r.int32() != kVersion) return std::nullopt;
  const int32_t kind = r.int32();
  if (kind < 0 || kind > static_cast<int32_t>(WriteRequest::Kind::kRevalidate)) {
    return std::nullopt;
  }
  request.kind = static_cast<WriteRequest::Kind>(kind);
  request.session = r.int64();
  request.xid = r.int32();
  request.op = static_cast<zk::wire::OpCode>(r.int32());
  auto body = r.buffer();
  if (body) request.body = std::move(*body);
  request.timeout_ms = r.int32();
  request.err = static_cast<zk::wire::Error>(r.int32());
  const int32_t touches = r.int32();
  if (!r.ok() || touches < 0 || static_cast<size_t>(touches) > bytes.size() / 12) {
    return std::nullopt;
  }
  for (int32_t i = 0; i < touches; ++i) {
    const int64_t session = r.int64();
    const int32_t timeout = r.int32();
    request.touches.emplace_back(session, timeout);
  }
  const int32_t ids = r.vector_size(8);  // an Id is at least two lengths
  for (int32_t i = 0; i < ids && r.ok(); ++i) {
    zk::wire::Id id;
    id.read(r);
    request.auth.add(id);
  }
  if (!r.ok() || !r.at_end()) return std::nullopt;
  return request;
}

tree::Txn prepare_write(tree::Database& db, const WriteRequest& request, int64_t zxid,
                        int64_t time_ms) {
  switch (request.kind) {
    case WriteRequest::Kind::kCreateSession:
      return db.prepare_create_session(request.session, request.timeout_ms, zxid, time_ms);
    case WriteRequest::Kind::kCloseSession:
      return db.prepare_close_session(request.session, request.xid, zxid, time_ms);
    case WriteRequest::Kind::kError: {
      tree::Txn txn;
      txn.header =
          tree::TxnHeader{request.session, request.xid, zxid, time_ms, zk::wire::OpCode::kError};
      txn.body = tree::ErrorTxn{request.err};
      return txn;
    }
    case WriteRequest::Kind::kOp:
    case WriteRequest::Kind::kTouch:
    case WriteRequest::Kind::kRevalidate:
      break;
  }
  return db.prepare(request.session, request.xid, request.op, request.body, zxid, time_ms,
                    request.auth);
}

std::string encode_prepared_txn(const tree::Txn& txn, const WriteRequest& request) {
  std::string bytes;
  bytes.reserve(kTxnHeaderSize + request.body.size() + kTxnSlack);
  zk::wire::Writer w(bytes);
  tree::write_txn(w, txn);
  return bytes;
}

}  // namespace zkd::server
