// SPDX-License-Identifier: Apache-2.0
// The frames zkd sends: a notification's header zxid (ZOOKEEPER-4655) and the
// ConnectResponse's readOnly byte following the request (ZOOKEEPER-4814).
#include "zkd/server/client_frames.h"

#include <gtest/gtest.h>

#include "libzk/wire/jute.h"

namespace zkd::server {
namespace {

using zk::wire::ConnectResponse;
using zk::wire::Error;
using zk::wire::EventType;
using zk::wire::ReplyHeader;
using zk::wire::WatcherEvent;

// The payload of a frame, its length prefix checked.
std::string payload_of(const std::string& frame) {
  zk::wire::Reader r(frame);
  const int32_t length = r.int32();
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(static_cast<size_t>(length), frame.size() - 4);
  return std::string(r.rest());
}

TEST(ClientFrames, NotificationCarriesTheFiringTxnsZxid) {
  const WatcherEvent event{EventType::kNodeDataChanged, zk::wire::KeeperState::kSyncConnected,
                           "/w"};
  const std::string payload = payload_of(notification_frame(event, 0x100000007));
  zk::wire::Reader r(payload);
  ReplyHeader header;
  header.read(r);
  WatcherEvent back;
  back.read(r);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_EQ(header.xid, zk::wire::kNotificationXid);
  EXPECT_EQ(header.zxid, 0x100000007);
  EXPECT_EQ(header.err, Error::kOk);
  EXPECT_EQ(back.type, EventType::kNodeDataChanged);
  EXPECT_EQ(back.path, "/w");
}

TEST(ClientFrames, NotificationWithoutATxnKeepsMinusOne) {
  const WatcherEvent event{EventType::kNodeCreated, zk::wire::KeeperState::kSyncConnected, "/w"};
  const std::string payload = payload_of(notification_frame(event, kNoZxid));
  zk::wire::Reader r(payload);
  ReplyHeader header;
  header.read(r);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(header.zxid, -1);
}

TEST(ClientFrames, ConnectResponseHasTheReadOnlyByteIffTheRequestHadIt) {
  ConnectResponse response{
      .timeout_ms = 30000, .session_id = 0x0100000abc, .passwd = std::string(16, 'p')};
  // Whatever the response record says, the request decides.
  response.has_read_only = false;
  EXPECT_EQ(payload_of(connect_response_frame(response, true)).size(), 37u);
  response.has_read_only = true;
  const std::string without = payload_of(connect_response_frame(response, false));
  ASSERT_EQ(without.size(), 36u);
  ConnectResponse back;
  ASSERT_TRUE(zk::wire::decode(without, back));
  EXPECT_FALSE(back.has_read_only);
  EXPECT_EQ(back.session_id, 0x0100000abc);
  EXPECT_EQ(back.passwd, std::string(16, 'p'));
  // The refusal of a resume is all zeros, in both shapes.
  EXPECT_EQ(payload_of(connect_response_frame(ConnectResponse{}, false)),
            std::string(16, '\0') + std::string("\0\0\0\x10", 4) + std::string(16, '\0'));
}

TEST(ClientFrames, ReplyIsHeaderThenBody) {
  const std::string payload = payload_of(reply_frame(5, 42, Error::kNoAuth, {}));
  EXPECT_EQ(payload.size(), 16u);
  zk::wire::Reader r(payload);
  ReplyHeader header;
  header.read(r);
  EXPECT_EQ(header.xid, 5);
  EXPECT_EQ(header.zxid, 42);
  EXPECT_EQ(header.err, Error::kNoAuth);
}

}  // namespace
}  // namespace zkd::server
