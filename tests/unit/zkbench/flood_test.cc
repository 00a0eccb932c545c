// SPDX-License-Identifier: Apache-2.0
// zkbench flood's pieces without sockets: the frames its raw clients send
// decode as the records they claim to be (with the xid written in), the
// answers they read are understood, and the offered rate is shared among
// the kinds as man/zkbench.1 says (shares, caps, kinds left out).
#include <gtest/gtest.h>

#include <string>

#include "libzk/wire/frame.h"
#include "libzk/wire/records.h"
#include "zkbench/flood_clients.h"
#include "zkbench/flood_wire.h"

namespace {

using namespace zk::bench::flood;
using zk::wire::OpCode;

// The payload of the one whole frame `bytes` holds.
std::string_view payload(const std::string& bytes) {
  const zk::wire::FrameView f = zk::wire::next_frame(bytes);
  EXPECT_EQ(f.status, zk::wire::FrameStatus::kFrame);
  EXPECT_EQ(f.consumed, bytes.size());
  return f.payload;
}

// The RequestHeader of `frame` and, through `body`, the record after it.
template <typename Record>
zk::wire::RequestHeader request(const std::string& frame, Record& body) {
  zk::wire::Reader r(payload(frame));
  zk::wire::RequestHeader h;
  h.read(r);
  body.read(r);
  EXPECT_TRUE(r.at_end());
  return h;
}

TEST(FloodWire, FramesDecodeAsTheirRecordsWithTheXidWrittenIn) {
  std::string get = get_data_frame("/r/k3");
  set_xid(get, 0x01020304);
  zk::wire::PathWatchRequest g;
  const auto gh = request(get, g);
  EXPECT_EQ(gh.xid, 0x01020304);
  EXPECT_EQ(gh.type, OpCode::kGetData);
  EXPECT_EQ(g.path, "/r/k3");
  EXPECT_FALSE(g.watch);

  std::string set = set_data_frame("/r/large0", std::string(70000, 'x'));
  set_xid(set, -5);
  zk::wire::SetDataRequest s;
  const auto sh = request(set, s);
  EXPECT_EQ(sh.xid, -5);
  EXPECT_EQ(sh.type, OpCode::kSetData);
  EXPECT_EQ(s.path, "/r/large0");
  EXPECT_EQ(s.data, std::string(70000, 'x'));
  EXPECT_EQ(s.version, -1);

  zk::wire::CreateRequest c;
  const auto ch = request(create_ephemeral_frame("/r/e/c"), c);
  EXPECT_EQ(ch.type, OpCode::kCreate);
  EXPECT_EQ(c.path, "/r/e/c");
  EXPECT_EQ(c.flags, static_cast<int32_t>(zk::wire::CreateMode::kEphemeralSequential));
  EXPECT_EQ(c.acl, zk::wire::open_acl_unsafe());

  zk::wire::Reader r(payload(close_session_frame()));
  zk::wire::RequestHeader close;
  close.read(r);
  EXPECT_TRUE(r.at_end());
  EXPECT_EQ(close.type, OpCode::kCloseSession);

  zk::wire::ConnectRequest hello;
  ASSERT_TRUE(zk::wire::decode(payload(connect_frame(6000)), hello));
  EXPECT_EQ(hello.timeout_ms, 6000);
  EXPECT_EQ(hello.session_id, 0);
}

TEST(FloodWire, AnswersAreUnderstood) {
  zk::wire::ConnectResponse granted;
  granted.timeout_ms = 6000;
  granted.session_id = 42;
  EXPECT_EQ(granted_session(zk::wire::encode(granted)), 42);
  zk::wire::ConnectResponse refused;  // timeout 0
  EXPECT_FALSE(granted_session(zk::wire::encode(refused)));
  EXPECT_FALSE(granted_session("\x01\x02"));

  zk::wire::ReplyHeader h;
  h.xid = 7;
  h.err = zk::wire::Error::kNoNode;
  EXPECT_EQ(reply_error(zk::wire::encode(h)), zk::wire::Error::kNoNode);
  EXPECT_FALSE(reply_error("\x01"));
}

TEST(FloodPlan, SharesTheRateAmongTheKindsWithTheirCaps) {
  const auto all = split_rate(10000, {Kind::kPipeline, Kind::kStorm, Kind::kLarge}, 512 * 1024);
  EXPECT_DOUBLE_EQ(all[0], 8000);
  EXPECT_DOUBLE_EQ(all[1], 1000);
  EXPECT_DOUBLE_EQ(all[2], 64);  // 32 MiB/s of 512 KiB requests, under 1000

  const auto big = split_rate(100000, {Kind::kStorm}, 1024);
  EXPECT_DOUBLE_EQ(big[0], 0);
  EXPECT_DOUBLE_EQ(big[1], 2000);  // all of it, capped
  EXPECT_DOUBLE_EQ(big[2], 0);

  const auto two = split_rate(900, {Kind::kLarge, Kind::kPipeline}, 100);
  EXPECT_DOUBLE_EQ(two[0], 800);
  EXPECT_DOUBLE_EQ(two[1], 0);
  EXPECT_DOUBLE_EQ(two[2], 100);
}

TEST(FloodPlan, KindsByName) {
  for (Kind k : kAllKinds) EXPECT_EQ(parse_kind(kind_name(k)), k);
  EXPECT_FALSE(parse_kind("nonsense"));
}

}  // namespace
