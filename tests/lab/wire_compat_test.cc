// SPDX-License-Identifier: Apache-2.0
// Wire details of Apache ZooKeeper 3.8.4-3.9.3 that zkd follows, on a real
// zkd over loopback, frame by frame (docs/apache-behaviour.md, "Apache 3.8.4
// to 3.9.3"). Debian's Apache is 3.8.0, which predates all but the last, so
// these are checked against the JIRA issues and Apache's source, not against
// a live Apache server; tests/conformance/test_wire_39.py runs the cases
// 3.8.0 shares against it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/multi.h"
#include "libzk/wire/records.h"
#include "tests/lab/lab_test_util.h"
#include "tests/lab/raw_client.h"
#include "zklab/process/four_letter_word.h"
#include "zklab/process/zkd_process.h"

namespace zk::lab {
namespace {

using zk::wire::encode;
using zk::wire::Error;
using zk::wire::EventType;
using zk::wire::OpCode;

constexpr int32_t kSetWatchesXid = -8;  // what Apache's clients send setWatches with

// A notification frame: its header (for the zxid) and its event.
struct Notification {
  zk::wire::ReplyHeader header;
  zk::wire::WatcherEvent event;
};

// The next frame, expected to be a notification (a failed expectation and an
// event of type kNone otherwise).
Notification next_notification(RawConnection& c) {
  Notification n;
  auto frame = c.read_frame();
  EXPECT_TRUE(frame) << "no notification";
  if (!frame) return n;
  auto reply = parse_reply(*frame);
  EXPECT_TRUE(reply && reply->header.xid == zk::wire::kNotificationXid) << "not a notification";
  if (!reply || reply->header.xid != zk::wire::kNotificationXid) return n;
  n.header = reply->header;
  EXPECT_TRUE(zk::wire::decode(reply->body, n.event));
  return n;
}

std::string acl_create_body(const std::string& path, zk::wire::ACLs acl) {
  return encode(zk::wire::CreateRequest{path, std::string("d"), std::move(acl), 0});
}

class WireCompatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ZkdOptions options = zkd_options();
    options.tick_time_ms = 200;  // session timeouts 400..4000 ms
    auto started = ZkdProcess::start(options);
    ASSERT_TRUE(started.process) << started.error;
    zkd_ = std::move(started.process);
  }
  void TearDown() override {
    if (HasFailure() && zkd_) std::cerr << "---- zkd log ----\n" << zkd_->log();
  }
  Session connect(int32_t timeout_ms = 4000) { return connect_session(*zkd_, timeout_ms); }
  std::string wchs() {
    return four_letter_word(zkd_->host(), zkd_->port(), "wchs").value_or("no answer");
  }

  std::unique_ptr<ZkdProcess> zkd_;
};

// ZOOKEEPER-4655 (3.9.0): a notification's header zxid is the zxid of the txn
// that fired it; 3.8 sent -1.
TEST_F(WireCompatTest, NotificationHeaderCarriesTheFiringTxnsZxid) {
  auto watcher = connect();
  auto writer = connect();
  auto& w = watcher.connection;
  auto& c = writer.connection;
  ASSERT_EQ(call(c, 1, OpCode::kCreate, create_body("/n", "a")).header.err, Error::kOk);
  ASSERT_EQ(call(w, 1, OpCode::kGetData, path_body("/n", true)).header.err, Error::kOk);
  ASSERT_EQ(call(w, 2, OpCode::kExists, path_body("/m", true)).header.err, Error::kNoNode);
  ASSERT_EQ(call(w, 3, OpCode::kGetChildren, path_body("/", true)).header.err, Error::kOk);

  auto set = call(c, 2, OpCode::kSetData, encode(zk::wire::SetDataRequest{"/n", "b", -1}));
  ASSERT_EQ(set.header.err, Error::kOk);
  Notification changed = next_notification(w);
  EXPECT_EQ(changed.event.type, EventType::kNodeDataChanged);
  EXPECT_EQ(changed.header.zxid, set.header.zxid);
  EXPECT_EQ(changed.header.err, Error::kOk);

  // Every event of a multi carries the multi's zxid.
  auto multi = call(c, 3, OpCode::kMulti,
                    zk::wire::encode_multi_request({zk::wire::multi_create("/m", "")}));
  ASSERT_EQ(multi.header.err, Error::kOk);
  Notification created = next_notification(w);
  Notification child = next_notification(w);
  EXPECT_EQ(created.event.type, EventType::kNodeCreated);
  EXPECT_EQ(child.event.type, EventType::kNodeChildrenChanged);
  EXPECT_EQ(created.header.zxid, multi.header.zxid);
  EXPECT_EQ(child.header.zxid, multi.header.zxid);
  EXPECT_GT(multi.header.zxid, set.header.zxid);
}

// Ephemerals deleted by closeSession: the closeSession txn's zxid, whether the
// client asked for the close or the session expired.
TEST_F(WireCompatTest, EphemeralDeletionsCarryTheCloseSessionsZxid) {
  auto watcher = connect();
  auto& w = watcher.connection;
  auto closing = connect();
  ASSERT_EQ(call(closing.connection, 1, OpCode::kCreate, create_body("/closed", "", 1)).header.err,
            Error::kOk);
  ASSERT_EQ(call(w, 1, OpCode::kExists, path_body("/closed", true)).header.err, Error::kOk);
  auto closed = call(closing.connection, 2, OpCode::kCloseSession);
  ASSERT_EQ(closed.header.err, Error::kOk);
  Notification deleted = next_notification(w);
  EXPECT_EQ(deleted.event.type, EventType::kNodeDeleted);
  EXPECT_EQ(deleted.event.path, "/closed");
  EXPECT_EQ(deleted.header.zxid, closed.header.zxid);

  // A persistent watch sees the create and then the expiry's delete.
  auto watched = call(w, 2, OpCode::kAddWatch, encode(zk::wire::AddWatchRequest{"/expired", 0}));
  ASSERT_EQ(watched.header.err, Error::kOk);
  int64_t made_zxid = 0;
  {
    auto expiring = connect(400);
    auto made = call(expiring.connection, 1, OpCode::kCreate, create_body("/expired", "", 1));
    ASSERT_EQ(made.header.err, Error::kOk);
    made_zxid = made.header.zxid;
  }  // the client goes silent: the session expires after 400 ms
  Notification created = next_notification(w);
  EXPECT_EQ(created.event.type, EventType::kNodeCreated);
  EXPECT_EQ(created.header.zxid, made_zxid);
  Notification expired = next_notification(w);
  EXPECT_EQ(expired.event.type, EventType::kNodeDeleted);
  EXPECT_EQ(expired.event.path, "/expired");
  // The closeSession txn is the only txn after the create.
  EXPECT_EQ(expired.header.zxid, made_zxid + 1);
  EXPECT_EQ(call(w, 3, OpCode::kSync, encode(zk::wire::PathRecord{"/"})).header.zxid,
            expired.header.zxid);
}

// setWatches' catch-up events were fired by no txn of this request: -1, as
// Apache 3.9's WatchedEvent.NO_ZXID.
TEST_F(WireCompatTest, SetWatchesCatchUpEventsKeepMinusOne) {
  auto s = connect();
  auto& c = s.connection;
  ASSERT_EQ(call(c, 1, OpCode::kCreate, create_body("/old", "a")).header.err, Error::kOk);
  std::string body;
  zk::wire::Writer writer(body);
  zk::wire::SetWatches request;
  request.relative_zxid = 0;  // older than /old's mzxid: NodeDataChanged at once
  request.data_watches = {"/old"};
  request.write(writer, /*v2=*/false);
  ASSERT_TRUE(c.send_request(kSetWatchesXid, OpCode::kSetWatches, body));
  Notification caught_up = next_notification(c);
  EXPECT_EQ(caught_up.event.type, EventType::kNodeDataChanged);
  EXPECT_EQ(caught_up.header.zxid, -1);
  auto reply = c.read_frame();
  ASSERT_TRUE(reply);
  EXPECT_EQ(parse_reply(*reply)->header.xid, kSetWatchesXid);
}

// ZOOKEEPER-2590 (3.8.4, 3.9.2): exists needs READ on a node that exists; the
// refused request sets no watch. A missing node has no ACL: NONODE, watch set.
TEST_F(WireCompatTest, ExistsNeedsReadOnAnExistingNode) {
  auto s = connect();
  auto& c = s.connection;
  const zk::wire::Id anyone{"world", "anyone"};
  ASSERT_EQ(call(c, 1, OpCode::kCreate, acl_create_body("/wo", {{zk::wire::perms::kWrite, anyone}}))
                .header.err,
            Error::kOk);
  ASSERT_EQ(call(c, 2, OpCode::kCreate, acl_create_body("/ro", {{zk::wire::perms::kRead, anyone}}))
                .header.err,
            Error::kOk);
  auto refused = call(c, 3, OpCode::kExists, path_body("/wo", true));
  EXPECT_EQ(refused.header.err, Error::kNoAuth);
  EXPECT_TRUE(refused.body.empty());
  EXPECT_EQ(wchs(), "0 connections watching 0 paths\nTotal watches:0\n");

  auto allowed = call(c, 4, OpCode::kExists, path_body("/ro", false));
  ASSERT_EQ(allowed.header.err, Error::kOk);
  zk::wire::Stat stat;
  ASSERT_TRUE(zk::wire::decode(allowed.body, stat));
  EXPECT_EQ(stat.data_length, 1);

  EXPECT_EQ(call(c, 5, OpCode::kExists, path_body("/wo/missing", true)).header.err, Error::kNoNode);
  EXPECT_EQ(wchs(), "1 connections watching 1 paths\nTotal watches:1\n");
}

// ZOOKEEPER-2623 (3.9.3): check (13) outside a multi is an unknown opcode:
// UNIMPLEMENTED with zxid -1, then the connection is closed; no zxid is used.
TEST_F(WireCompatTest, CheckOutsideMultiIsUnimplementedThenClosed) {
  auto other = connect();
  std::vector<Session> checkers;  // opened first: createSession takes a zxid
  checkers.push_back(connect());
  checkers.push_back(connect());
  auto first = call(other.connection, 1, OpCode::kCreate, create_body("/c", ""));
  ASSERT_EQ(first.header.err, Error::kOk);
  for (int version : {0, 7}) {  // a check that would pass, and one that would fail
    Session& s = checkers[version == 0 ? 0 : 1];
    auto reply =
        call(s.connection, 1, OpCode::kCheck, encode(zk::wire::CheckVersionRequest{"/c", version}));
    EXPECT_EQ(reply.header.err, Error::kUnimplemented);
    EXPECT_EQ(reply.header.zxid, -1);
    EXPECT_TRUE(reply.body.empty());
    EXPECT_TRUE(s.connection.closed_without_data());
  }
  auto next = call(other.connection, 2, OpCode::kCreate, create_body("/d", ""));
  EXPECT_EQ(next.header.zxid, first.header.zxid + 1);
  // Inside a multi, check still works.
  auto multi = call(other.connection, 3, OpCode::kMulti,
                    zk::wire::encode_multi_request({zk::wire::multi_check("/c", 0)}));
  EXPECT_EQ(multi.header.err, Error::kOk);
}

// ZOOKEEPER-4814 (3.9.3; 3.8 behaves the same): a ConnectRequest that ends
// after the password is served, and every answer to it has no readOnly byte.
TEST_F(WireCompatTest, ConnectRequestWithoutReadOnlyByteIsServedInBothDirections) {
  auto old_request = new_session_request(4000);
  old_request.has_read_only = false;
  auto old_client = open_session(zkd_->host(), zkd_->port(), old_request);
  ASSERT_TRUE(old_client);
  EXPECT_EQ(old_client->response_size, 36u);
  EXPECT_NE(old_client->response.session_id, 0);
  EXPECT_EQ(old_client->response.timeout_ms, 4000);
  EXPECT_EQ(call(old_client->connection, 1, OpCode::kCreate, create_body("/old", "")).header.err,
            Error::kOk);

  // Resumed without and with the byte: answered in the request's shape.
  zk::wire::ConnectRequest resume = old_request;
  resume.session_id = old_client->response.session_id;
  resume.passwd = old_client->response.passwd;
  for (bool with_byte : {false, true}) {
    resume.has_read_only = with_byte;
    auto again = open_session(zkd_->host(), zkd_->port(), resume);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->response_size, with_byte ? 37u : 36u);
    EXPECT_EQ(again->response.session_id, old_client->response.session_id);
    EXPECT_EQ(call(again->connection, 1, OpCode::kExists, path_body("/old")).header.err,
              Error::kOk);
  }

  // The all-zero refusal follows the request's shape too.
  resume.has_read_only = false;
  resume.passwd = std::string(16, 'x');
  auto refused = open_session(zkd_->host(), zkd_->port(), resume);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->response_size, 36u);
  EXPECT_EQ(refused->response.session_id, 0);
  EXPECT_EQ(refused->response.timeout_ms, 0);
  EXPECT_TRUE(refused->connection.closed_without_data());
}

}  // namespace
}  // namespace zk::lab
