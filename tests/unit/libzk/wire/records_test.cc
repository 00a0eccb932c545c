// SPDX-License-Identifier: Apache-2.0
// Golden bytes from §16 and the record layouts of docs/wire-protocol.md,
// plus round-trips.
#include "libzk/wire/records.h"

#include <gtest/gtest.h>

#include "tests/unit/libzk/wire/hex.h"

namespace zk::wire {
namespace {

using testing::from_hex;
using testing::to_hex;

template <typename Record>
std::string frame(const Record& header) {
  std::string out;
  Writer w(out);
  size_t start = w.begin_frame();
  header.write(w);
  w.end_frame(start);
  return out;
}

template <typename Header, typename Body>
std::string frame(const Header& header, const Body& body) {
  std::string out;
  Writer w(out);
  size_t start = w.begin_frame();
  header.write(w);
  body.write(w);
  w.end_frame(start);
  return out;
}

Stat sample_stat() {
  return Stat{.czxid = 1,
              .mzxid = 2,
              .ctime = 3,
              .mtime = 4,
              .version = 5,
              .cversion = 6,
              .aversion = 7,
              .ephemeral_owner = 8,
              .data_length = 9,
              .num_children = 10,
              .pzxid = 11};
}

TEST(Records, NewSessionConnectRequestIs45Bytes) {
  ConnectRequest req{.timeout_ms = 30000};
  EXPECT_EQ(to_hex(frame(req)), to_hex(from_hex("0000002d 00000000 0000000000000000 00007530 "
                                                "0000000000000000 00000010 "
                                                "00000000000000000000000000000000 00")));
}

TEST(Records, ConnectRequestWithoutReadOnlyByteIs44Bytes) {
  ConnectRequest req{.timeout_ms = 30000, .has_read_only = false};
  std::string bytes = encode(req);
  EXPECT_EQ(bytes.size(), 44u);
  ConnectRequest back;
  ASSERT_TRUE(decode(bytes, back));
  EXPECT_FALSE(back.has_read_only);
}

TEST(Records, ConnectRequestRoundTripsWithReadOnly) {
  ConnectRequest req{.last_zxid_seen = 0x1234,
                     .timeout_ms = 4000,
                     .session_id = 0x100000042,
                     .passwd = std::string(16, 'p'),
                     .read_only = true};
  ConnectRequest back;
  ASSERT_TRUE(decode(encode(req), back));
  EXPECT_EQ(back.last_zxid_seen, 0x1234);
  EXPECT_EQ(back.timeout_ms, 4000);
  EXPECT_EQ(back.session_id, 0x100000042);
  EXPECT_EQ(back.passwd, std::string(16, 'p'));
  EXPECT_TRUE(back.has_read_only);
  EXPECT_TRUE(back.read_only);
}

TEST(Records, ConnectResponseIs37BytesWithTheFlagAnd36Without) {
  ConnectResponse resp{.timeout_ms = 0x7530,
                       .session_id = 0x0100000abc,
                       .passwd = from_hex("000102030405060708090a0b0c0d0e0f")};
  EXPECT_EQ(to_hex(frame(resp)),
            to_hex(from_hex("00000025 00000000 00007530 000000 0100000abc 00000010 "
                            "000102030405060708090a0b0c0d0e0f 00")));
  resp.has_read_only = false;
  EXPECT_EQ(encode(resp).size(), 36u);
}

TEST(Records, InvalidSessionAnswerIsAllZero) {
  ConnectResponse resp{};
  EXPECT_EQ(to_hex(encode(resp)),
            "00000000"
            "00000000"
            "0000000000000000"
            "00000010" +
                std::string(32, '0') + "00");
}

TEST(Records, PingRequestAndReply) {
  EXPECT_EQ(to_hex(frame(RequestHeader{kPingXid, OpCode::kPing})),
            to_hex(from_hex("00000008 fffffffe 0000000b")));
  EXPECT_EQ(to_hex(frame(ReplyHeader{kPingXid, 0x2a, Error::kOk})),
            to_hex(from_hex("00000010 fffffffe 000000000000002a 00000000")));
}

TEST(Records, CloseSessionRequest) {
  EXPECT_EQ(to_hex(frame(RequestHeader{7, OpCode::kCloseSession})),
            to_hex(from_hex("00000008 00000007 fffffff5")));
}

TEST(Records, NotificationFrame) {
  ReplyHeader h{kNotificationXid, -1, Error::kOk};
  WatcherEvent e{EventType::kNodeDataChanged, KeeperState::kSyncConnected, "/w"};
  EXPECT_EQ(to_hex(frame(h, e)),
            to_hex(from_hex("0000001e ffffffff ffffffffffffffff 00000000 00000003 00000003 "
                            "00000002 2f77")));
}

TEST(Records, ErrorReplyHeaderIs16Bytes) {
  std::string bytes = encode(ReplyHeader{5, 0x10, Error::kNoNode});
  EXPECT_EQ(bytes.size(), kReplyHeaderSize);
  EXPECT_EQ(to_hex(bytes),
            "00000005"
            "0000000000000010"
            "ffffff9b");
}

TEST(Records, StatIs68BytesInFieldOrder) {
  std::string bytes = encode(sample_stat());
  ASSERT_EQ(bytes.size(), kStatSize);
  EXPECT_EQ(to_hex(bytes),
            "0000000000000001"
            "0000000000000002"
            "0000000000000003"
            "0000000000000004"
            "00000005"
            "00000006"
            "00000007"
            "0000000000000008"
            "00000009"
            "0000000a"
            "000000000000000b");
  Stat back;
  ASSERT_TRUE(decode(bytes, back));
  EXPECT_EQ(back, sample_stat());
}

TEST(Records, CreateRequestLayout) {
  CreateRequest req{.path = "/a", .data = Buffer{"x"}, .acl = open_acl_unsafe(), .flags = 3};
  EXPECT_EQ(to_hex(encode(req)),
            "00000002"
            "2f61"
            "00000001"
            "78"
            "00000001"
            "0000001f"
            "00000005"
            "776f726c64"
            "00000006"
            "616e796f6e65"
            "00000003");
  CreateRequest back;
  ASSERT_TRUE(decode(encode(req), back));
  EXPECT_EQ(back.path, "/a");
  EXPECT_EQ(back.data, Buffer{"x"});
  EXPECT_EQ(back.acl, open_acl_unsafe());
  EXPECT_EQ(back.flags, 3);
}

TEST(Records, CreateRequestWithNullDataKeepsNull) {
  CreateRequest req{.path = "/n", .data = std::nullopt, .acl = open_acl_unsafe()};
  CreateRequest back;
  ASSERT_TRUE(decode(encode(req), back));
  EXPECT_EQ(back.data, std::nullopt);
}

TEST(Records, TruncatedCreateRequestFails) {
  CreateRequest req{.path = "/a", .data = Buffer{"x"}, .acl = open_acl_unsafe()};
  std::string bytes = encode(req);
  for (size_t n = 0; n < bytes.size(); ++n) {
    CreateRequest back;
    EXPECT_FALSE(decode(std::string_view(bytes).substr(0, n), back)) << "prefix of " << n;
  }
}

TEST(Records, PathWatchRequestLayout) {
  EXPECT_EQ(to_hex(encode(PathWatchRequest{"/w", true})),
            "00000002"
            "2f77"
            "01");
}

TEST(Records, DeleteAndSetDataLayout) {
  EXPECT_EQ(to_hex(encode(DeleteRequest{"/d", 4})),
            "00000002"
            "2f64"
            "00000004");
  EXPECT_EQ(to_hex(encode(SetDataRequest{"/d", Buffer{"v"}, -1})),
            "00000002"
            "2f64"
            "00000001"
            "76"
            "ffffffff");
}

TEST(Records, GetDataResponseRoundTrips) {
  GetDataResponse resp{Buffer{"hello"}, sample_stat()};
  GetDataResponse back;
  ASSERT_TRUE(decode(encode(resp), back));
  EXPECT_EQ(back.data, Buffer{"hello"});
  EXPECT_EQ(back.stat, sample_stat());
  GetDataResponse null_data{std::nullopt, Stat{}};
  EXPECT_EQ(to_hex(encode(null_data)).substr(0, 8), "ffffffff");
}

TEST(Records, ChildrenResponsesRoundTrip) {
  GetChildren2Response resp{{"a", "b"}, sample_stat()};
  GetChildren2Response back;
  ASSERT_TRUE(decode(encode(resp), back));
  EXPECT_EQ(back.children, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(back.stat, sample_stat());
  EXPECT_EQ(to_hex(encode(GetChildrenResponse{})), "00000000");
}

TEST(Records, Create2AndAclResponsesRoundTrip) {
  Create2Response c{"/x0000000001", sample_stat()};
  Create2Response cb;
  ASSERT_TRUE(decode(encode(c), cb));
  EXPECT_EQ(cb.path, "/x0000000001");
  EXPECT_EQ(cb.stat, sample_stat());

  GetACLResponse a{read_acl_unsafe(), sample_stat()};
  GetACLResponse ab;
  ASSERT_TRUE(decode(encode(a), ab));
  EXPECT_EQ(ab.acl, read_acl_unsafe());
}

TEST(Records, SetWatchesV1AndV2) {
  SetWatches sw{.relative_zxid = 9,
                .data_watches = {"/d"},
                .exist_watches = {},
                .child_watches = {"/c"},
                .persistent_watches = {"/p"},
                .persistent_recursive_watches = {}};
  std::string v1;
  Writer w1(v1);
  sw.write(w1, false);
  EXPECT_EQ(to_hex(v1),
            "0000000000000009"
            "00000001"
            "00000002"
            "2f64"
            "00000000"
            "00000001"
            "00000002"
            "2f63");
  std::string v2;
  Writer w(v2);
  sw.write(w, true);
  SetWatches back;
  Reader r(v2);
  back.read(r, true);
  ASSERT_TRUE(r.at_end());
  EXPECT_EQ(back.persistent_watches, (std::vector<std::string>{"/p"}));
  EXPECT_TRUE(back.persistent_recursive_watches.empty());
}

TEST(Records, AuthPacketLayout) {
  AuthPacket p{0, "digest", Buffer{"u:p"}};
  EXPECT_EQ(to_hex(encode(p)),
            "00000000"
            "00000006"
            "646967657374"
            "00000003"
            "753a70");
}

}  // namespace
}  // namespace zk::wire
