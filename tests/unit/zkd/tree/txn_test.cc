// SPDX-License-Identifier: Apache-2.0
// Txn codec: Apache's TxnHeader + record layout (docs/wire-protocol.md §14.2),
// round trips.
#include "zkd/tree/txn.h"

#include <gtest/gtest.h>

#include <string>

namespace zkd::tree {
namespace {

using zk::wire::OpCode;

std::string encode(const Txn& t) {
  std::string out;
  zk::wire::Writer w(out);
  write_txn(w, t);
  return out;
}

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

TxnHeader header(OpCode type) {
  return TxnHeader{0x1000004c2160000, 7, 0x100000005, 1700000000123, type};
}

void expect_round_trip(const Txn& t) {
  std::string bytes = encode(t);
  Txn back;
  ASSERT_TRUE(read_txn(bytes, back));
  EXPECT_EQ(encode(back), bytes);
  EXPECT_EQ(back.header.session_id, t.header.session_id);
  EXPECT_EQ(back.header.cxid, t.header.cxid);
  EXPECT_EQ(back.header.zxid, t.header.zxid);
  EXPECT_EQ(back.header.time_ms, t.header.time_ms);
  EXPECT_EQ(back.header.type, t.header.type);
  EXPECT_EQ(back.body.index(), t.body.index());
}

TEST(Txn, HeaderLayoutIsClientIdCxidZxidTimeType) {
  Txn t{header(OpCode::kDelete), DeleteTxn{"/a"}};
  EXPECT_EQ(hex(encode(t)),
            "01000004c2160000"  // clientId
            "00000007"          // cxid
            "0000000100000005"  // zxid
            "0000018bcfe5687b"  // time
            "00000002"          // type
            "000000022f61");    // DeleteTxn{path}
}

TEST(Txn, CreateTxnLayout) {
  Txn t{header(OpCode::kCreate),
        CreateTxn{"/a", std::string("x"), zk::wire::open_acl_unsafe(), true, 3}};
  std::string body = hex(encode(t)).substr(2 * 32);
  EXPECT_EQ(body,
            "000000022f61"  // path
            "0000000178"    // data
            "00000001"
            "0000001f"  // one ACL, perms ALL
            "00000005776f726c64"
            "00000006616e796f6e65"  // world, anyone
            "01"                    // ephemeral
            "00000003");            // parentCVersion
}

TEST(Txn, NullDataIsWrittenAsMinusOne) {
  Txn t{header(OpCode::kSetData), SetDataTxn{"/a", std::nullopt, 4}};
  EXPECT_EQ(hex(encode(t)).substr(2 * 32), "000000022f61ffffffff00000004");
  Txn back;
  ASSERT_TRUE(read_txn(encode(t), back));
  EXPECT_EQ(std::get<SetDataTxn>(back.body).data, std::nullopt);
}

TEST(Txn, EveryBodyRoundTrips) {
  expect_round_trip({header(OpCode::kCreateSession), CreateSessionTxn{30000}});
  expect_round_trip({header(OpCode::kCloseSession), CloseSessionTxn{{"/a", "/b/c"}}});
  expect_round_trip({header(OpCode::kCreate),
                     CreateTxn{"/a", std::nullopt, zk::wire::read_acl_unsafe(), false, -1}});
  expect_round_trip({header(OpCode::kCreate2),
                     CreateTxn{"/a", std::string(), zk::wire::open_acl_unsafe(), true, 9}});
  expect_round_trip({header(OpCode::kDelete), DeleteTxn{"/x"}});
  expect_round_trip({header(OpCode::kSetData), SetDataTxn{"/x", std::string("abc"), 2}});
  expect_round_trip({header(OpCode::kSetACL), SetACLTxn{"/x", zk::wire::open_acl_unsafe(), 1}});
  expect_round_trip({header(OpCode::kError), ErrorTxn{zk::wire::Error::kNodeExists}});
}

TEST(Txn, DecodedFieldsMatch) {
  Txn t{header(OpCode::kCreate2),
        CreateTxn{"/n", std::string("d"), zk::wire::read_acl_unsafe(), true, 12}};
  Txn back;
  ASSERT_TRUE(read_txn(encode(t), back));
  const auto& c = std::get<CreateTxn>(back.body);
  EXPECT_EQ(c.path, "/n");
  EXPECT_EQ(c.data, std::optional<std::string>("d"));
  EXPECT_EQ(c.acl, zk::wire::read_acl_unsafe());
  EXPECT_TRUE(c.ephemeral);
  EXPECT_EQ(c.parent_cversion, 12);

  Txn e{header(OpCode::kError), ErrorTxn{zk::wire::Error::kBadVersion}};
  ASSERT_TRUE(read_txn(encode(e), back));
  EXPECT_EQ(std::get<ErrorTxn>(back.body).err, zk::wire::Error::kBadVersion);
  EXPECT_EQ(hex(encode(e)).substr(2 * 32), "ffffff99");
}

TEST(Txn, TrailingDigestIsIgnored) {
  std::string bytes = encode({header(OpCode::kDelete), DeleteTxn{"/a"}});
  bytes += std::string("\x00\x00\x00\x02\x01\x02\x03\x04\x05\x06\x07\x08", 12);
  Txn back;
  ASSERT_TRUE(read_txn(bytes, back));
  EXPECT_EQ(std::get<DeleteTxn>(back.body).path, "/a");
}

TEST(Txn, CloseSessionWithoutRecordReadsAsEmptyList) {
  std::string bytes = encode({header(OpCode::kCloseSession), CloseSessionTxn{}});
  bytes.resize(32);  // header only, as in old logs
  Txn back;
  ASSERT_TRUE(read_txn(bytes, back));
  EXPECT_TRUE(std::get<CloseSessionTxn>(back.body).paths_to_delete.empty());
}

TEST(Txn, TruncatedOrUnknownIsRejectedAndLeavesOutputAlone) {
  std::string bytes = encode({header(OpCode::kSetData), SetDataTxn{"/x", std::string("abc"), 2}});
  Txn out{header(OpCode::kDelete), DeleteTxn{"/keep"}};
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(read_txn(bytes.substr(0, n), out)) << n;
  }
  EXPECT_EQ(std::get<DeleteTxn>(out.body).path, "/keep");
  std::string unknown = encode({header(OpCode::kGetData), ErrorTxn{}});  // never a txn
  EXPECT_FALSE(read_txn(unknown, out));
}

}  // namespace
}  // namespace zkd::tree
