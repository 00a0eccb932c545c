// WriteRequest: the forwarded form of a client write survives the trip to
// the leader, garbage is refused, and prepare_write() gives the txn the
// standalone server would prepare.
#include "zkd/server/write_request.h"

#include <gtest/gtest.h>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"

namespace zkd::server {
namespace {

using zk::wire::OpCode;

WriteRequest full_request() {
  WriteRequest r;
  r.kind = WriteRequest::Kind::kOp;
  r.session = 0x0100000000000abcLL;
  r.xid = 42;
  r.op = OpCode::kSetData;
  r.body = std::string("\0\x01payload", 9);
  r.timeout_ms = 30000;
  r.err = zk::wire::Error::kNoNode;
  r.touches = {{1, 4000}, {2, 6000}};
  return r;
}

TEST(WriteRequestTest, RoundTripsEveryField) {
  const WriteRequest r = full_request();
  auto back = decode_write_request(encode_write_request(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->kind, r.kind);
  EXPECT_EQ(back->session, r.session);
  EXPECT_EQ(back->xid, r.xid);
  EXPECT_EQ(back->op, r.op);
  EXPECT_EQ(back->body, r.body);
  EXPECT_EQ(back->timeout_ms, r.timeout_ms);
  EXPECT_EQ(back->err, r.err);
  EXPECT_EQ(back->touches, r.touches);
}

TEST(WriteRequestTest, RefusesTruncatedTrailingAndUnknownKinds) {
  const std::string bytes = encode_write_request(full_request());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(decode_write_request(bytes.substr(0, n))) << n;
  }
  EXPECT_FALSE(decode_write_request(bytes + "x"));
  std::string bad_kind = bytes;
  bad_kind[7] = 9;  // kind is the second int32
  EXPECT_FALSE(decode_write_request(bad_kind));
}

TEST(WriteRequestTest, PreparesTheTxnOfEachKind) {
  tree::Database db;
  WriteRequest create_session;
  create_session.kind = WriteRequest::Kind::kCreateSession;
  create_session.session = 7;
  create_session.timeout_ms = 5000;
  tree::Txn txn = prepare_write(db, create_session, 1, 100);
  EXPECT_EQ(txn.header.type, OpCode::kCreateSession);
  EXPECT_EQ(txn.header.zxid, 1);
  db.apply(txn);

  WriteRequest create;
  create.session = 7;
  create.xid = 3;
  create.op = OpCode::kCreate;
  std::string body;
  zk::wire::Writer w(body);
  zk::wire::CreateRequest{"/a", zk::wire::Buffer{"x"}, zk::wire::open_acl_unsafe(), 0}.write(w);
  create.body = body;
  txn = prepare_write(db, create, 2, 100);
  EXPECT_EQ(txn.header.type, OpCode::kCreate);
  EXPECT_EQ(txn.header.cxid, 3);
  db.apply(txn);
  EXPECT_EQ(prepare_write(db, create, 3, 100).header.type, OpCode::kError);  // NODEEXISTS

  WriteRequest refused;
  refused.kind = WriteRequest::Kind::kError;
  refused.session = 7;
  refused.xid = 4;
  refused.err = zk::wire::Error::kUnimplemented;
  txn = prepare_write(db, refused, 4, 100);
  EXPECT_EQ(txn.header.type, OpCode::kError);
  EXPECT_EQ(std::get<tree::ErrorTxn>(txn.body).err, zk::wire::Error::kUnimplemented);

  WriteRequest close;
  close.kind = WriteRequest::Kind::kCloseSession;
  close.session = 7;
  EXPECT_EQ(prepare_write(db, close, 5, 100).header.type, OpCode::kCloseSession);
}

}  // namespace
}  // namespace zkd::server
