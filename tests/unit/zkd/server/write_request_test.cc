// SPDX-License-Identifier: Apache-2.0
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
  r.auth = tree::AuthIds({{"ip", "127.0.0.1"}, {"super", ""}, {"digest", "alice:hash"}});
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
  EXPECT_EQ(back->auth, r.auth);
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

TEST(WriteRequestTest, TheLeaderChecksTheCallersIds) {
  tree::Database db;
  db.apply(db.prepare_create_session(7, 5000, 1, 100));
  const zk::wire::Id alice{"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="};
  WriteRequest create;
  create.session = 7;
  create.op = OpCode::kCreate;
  create.body = zk::wire::encode(
      zk::wire::CreateRequest{"/mine", std::string(), {{zk::wire::perms::kAll, {"auth", ""}}}, 0});
  create.auth = tree::AuthIds({{"ip", "127.0.0.1"}, alice});
  tree::Txn txn = prepare_write(db, create, 2, 100);
  ASSERT_EQ(txn.header.type, OpCode::kCreate);
  EXPECT_EQ(std::get<tree::CreateTxn>(txn.body).acl,
            (zk::wire::ACLs{{zk::wire::perms::kAll, alice}}));
  db.apply(txn);

  WriteRequest set_data;
  set_data.session = 7;
  set_data.op = OpCode::kSetData;
  set_data.body = zk::wire::encode(zk::wire::SetDataRequest{"/mine", std::string("x"), -1});
  set_data.auth = tree::AuthIds({{"ip", "127.0.0.1"}});
  txn = prepare_write(db, set_data, 3, 100);
  ASSERT_EQ(txn.header.type, OpCode::kError);
  EXPECT_EQ(std::get<tree::ErrorTxn>(txn.body).err, zk::wire::Error::kNoAuth);
  // The ids survive the trip to the leader.
  set_data.auth = create.auth;
  auto forwarded = decode_write_request(encode_write_request(set_data));
  ASSERT_TRUE(forwarded);
  EXPECT_EQ(prepare_write(db, *forwarded, 3, 100).header.type, OpCode::kSetData);
}

}  // namespace
}  // namespace zkd::server
