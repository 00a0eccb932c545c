// SPDX-License-Identifier: Apache-2.0
// zkd as a process: the client protocol over real loopback sockets, checked
// frame by frame against the facts in docs/wire-protocol.md.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"
#include "tests/lab/lab_test_util.h"
#include "tests/lab/raw_client.h"
#include "zklab/process/four_letter_word.h"
#include "zklab/process/zkd_process.h"

namespace zk::lab {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using zk::wire::encode;
using zk::wire::Error;
using zk::wire::OpCode;

class ZkdServerTest : public ::testing::Test {
 protected:
  void start(const ZkdOptions& options = zkd_options()) {
    auto started = ZkdProcess::start(options);
    ASSERT_TRUE(started.process) << started.error;
    zkd_ = std::move(started.process);
  }
  void SetUp() override { start(); }

  void TearDown() override {
    if (HasFailure() && zkd_) std::cerr << "---- zkd log ----\n" << zkd_->log();
  }

  Session connect(int32_t timeout_ms = 30000) { return connect_session(*zkd_, timeout_ms); }

  std::unique_ptr<ZkdProcess> zkd_;
};

TEST_F(ZkdServerTest, HandshakeAnswers37BytesWithReadOnlyFlagAnd36Without) {
  auto with_flag = connect();
  EXPECT_EQ(with_flag.response_size, 37u);
  EXPECT_TRUE(with_flag.response.has_read_only);
  EXPECT_FALSE(with_flag.response.read_only);
  EXPECT_EQ(with_flag.response.passwd.size(), 16u);
  EXPECT_EQ(with_flag.response.timeout_ms, 30000);
  // Apache's id layout: server id 1 in the top byte.
  EXPECT_EQ(static_cast<uint64_t>(with_flag.response.session_id) >> 56, 1u);

  auto old_client = new_session_request(30000);
  old_client.has_read_only = false;
  auto without_flag = open_session(zkd_->host(), zkd_->port(), old_client);
  ASSERT_TRUE(without_flag);
  EXPECT_EQ(without_flag->response_size, 36u);
  EXPECT_EQ(without_flag->response.session_id, with_flag.response.session_id + 1);
}

TEST_F(ZkdServerTest, SessionTimeoutIsClampedIntoConfiguredRange) {
  // Default tickTime 2000 here: [4000, 40000].
  EXPECT_EQ(connect(1000).response.timeout_ms, 4000);
  EXPECT_EQ(connect(100000).response.timeout_ms, 40000);
}

TEST_F(ZkdServerTest, CreateGetSetChildrenDeleteRoundTrip) {
  auto s = connect();
  auto& c = s.connection;

  auto created = call(c, 1, OpCode::kCreate, create_body("/app", "v1"));
  ASSERT_EQ(created.header.err, Error::kOk);
  zk::wire::PathRecord created_path;
  ASSERT_TRUE(zk::wire::decode(created.body, created_path));
  EXPECT_EQ(created_path.path, "/app");
  int64_t create_zxid = created.header.zxid;
  EXPECT_GT(create_zxid, 0);

  auto got = call(c, 2, OpCode::kGetData, path_body("/app", false));
  ASSERT_EQ(got.header.err, Error::kOk);
  zk::wire::GetDataResponse data;
  ASSERT_TRUE(zk::wire::decode(got.body, data));
  EXPECT_EQ(data.data, "v1");
  EXPECT_EQ(data.stat.czxid, create_zxid);
  EXPECT_EQ(data.stat.version, 0);

  auto set = call(c, 3, OpCode::kSetData, encode(zk::wire::SetDataRequest{"/app", "v2", 0}));
  ASSERT_EQ(set.header.err, Error::kOk);
  EXPECT_EQ(set.header.zxid, create_zxid + 1);

  auto bad_version = call(c, 4, OpCode::kSetData, encode(zk::wire::SetDataRequest{"/app", "x", 0}));
  EXPECT_EQ(bad_version.header.err, Error::kBadVersion);
  EXPECT_TRUE(bad_version.body.empty());

  ASSERT_EQ(call(c, 5, OpCode::kCreate, create_body("/app/a", "")).header.err, Error::kOk);
  ASSERT_EQ(call(c, 6, OpCode::kCreate, create_body("/app/b", "")).header.err, Error::kOk);
  auto children = call(c, 7, OpCode::kGetChildren, path_body("/app", false));
  ASSERT_EQ(children.header.err, Error::kOk);
  zk::wire::GetChildrenResponse names;
  ASSERT_TRUE(zk::wire::decode(children.body, names));
  std::sort(names.children.begin(), names.children.end());
  EXPECT_EQ(names.children, (std::vector<std::string>{"a", "b"}));

  EXPECT_EQ(call(c, 8, OpCode::kDelete, encode(zk::wire::DeleteRequest{"/app", -1})).header.err,
            Error::kNotEmpty);
  EXPECT_EQ(call(c, 9, OpCode::kDelete, encode(zk::wire::DeleteRequest{"/app/a", -1})).header.err,
            Error::kOk);
  auto exists = call(c, 10, OpCode::kExists, path_body("/app/a", false));
  EXPECT_EQ(exists.header.err, Error::kNoNode);

  // Reply zxids never go backwards and reads report the last zxid.
  auto ping_zxid = call(c, 11, OpCode::kSync, encode(zk::wire::PathRecord{"/"})).header.zxid;
  EXPECT_GE(ping_zxid, create_zxid + 1);
}

TEST_F(ZkdServerTest, PingIsAnsweredWithXidMinusTwo) {
  auto s = connect();
  ASSERT_TRUE(s.connection.send_request(42, OpCode::kPing));
  auto frame = s.connection.read_frame();
  ASSERT_TRUE(frame);
  auto reply = parse_reply(*frame);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->header.xid, -2);
  EXPECT_EQ(reply->header.err, Error::kOk);
  EXPECT_EQ(frame->size(), 16u);
}

TEST_F(ZkdServerTest, CloseSessionRepliesThenClosesAndRemovesEphemerals) {
  auto owner = connect();
  auto observer = connect();
  ASSERT_EQ(call(owner.connection, 1, OpCode::kCreate, create_body("/eph", "", 1)).header.err,
            Error::kOk);
  ASSERT_EQ(call(observer.connection, 1, OpCode::kExists, path_body("/eph", true)).header.err,
            Error::kOk);

  auto closed = call(owner.connection, 2, OpCode::kCloseSession);
  EXPECT_EQ(closed.header.err, Error::kOk);
  EXPECT_TRUE(owner.connection.closed_without_data());

  auto e = read_notification(observer.connection);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->type, zk::wire::EventType::kNodeDeleted);
  EXPECT_EQ(e->path, "/eph");
  EXPECT_EQ(call(observer.connection, 2, OpCode::kExists, path_body("/eph", false)).header.err,
            Error::kNoNode);
}

TEST_F(ZkdServerTest, NotificationPrecedesReplyToTheWriteThatFiredIt) {
  auto s = connect();
  auto& c = s.connection;
  ASSERT_EQ(call(c, 1, OpCode::kCreate, create_body("/w", "a")).header.err, Error::kOk);
  ASSERT_EQ(call(c, 2, OpCode::kGetData, path_body("/w", true)).header.err, Error::kOk);
  ASSERT_TRUE(c.send_request(3, OpCode::kSetData, encode(zk::wire::SetDataRequest{"/w", "b", -1})));
  auto first = c.read_frame();
  auto second = c.read_frame();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(parse_reply(*first)->header.xid, -1);
  EXPECT_EQ(parse_reply(*second)->header.xid, 3);
  // The write's own zxid, as Apache 3.9 (wire_compat_test.cc).
  EXPECT_EQ(parse_reply(*first)->header.zxid, parse_reply(*second)->header.zxid);
}

TEST_F(ZkdServerTest, RepliesFollowRequestOrderWhenPipelined) {
  auto s = connect();
  auto& c = s.connection;
  std::string burst;
  for (int xid = 1; xid <= 20; ++xid) {
    std::string payload;
    zk::wire::Writer w(payload);
    zk::wire::RequestHeader{xid, xid % 2 ? OpCode::kExists : OpCode::kCreate}.write(w);
    payload += xid % 2 ? path_body("/p" + std::to_string(xid - 1), false)
                       : create_body("/p" + std::to_string(xid), "");
    std::string frame;
    zk::wire::Writer fw(frame);
    size_t start = fw.begin_frame();
    frame += payload;
    fw.end_frame(start);
    burst += frame;
  }
  ASSERT_TRUE(c.send_bytes(burst));
  for (int xid = 1; xid <= 20; ++xid) {
    auto frame = c.read_frame();
    ASSERT_TRUE(frame);
    EXPECT_EQ(parse_reply(*frame)->header.xid, xid);
  }
}

TEST_F(ZkdServerTest, ResumeWithPasswordKeepsSessionAndWrongPasswordGetsZeroAnswer) {
  auto first = connect(30000);
  ASSERT_EQ(call(first.connection, 1, OpCode::kCreate, create_body("/mine", "", 1)).header.err,
            Error::kOk);

  zk::wire::ConnectRequest resume = new_session_request(10000);
  resume.session_id = first.response.session_id;
  resume.passwd = first.response.passwd;
  resume.last_zxid_seen = 1;
  auto again = open_session(zkd_->host(), zkd_->port(), resume);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->response.session_id, first.response.session_id);
  EXPECT_EQ(again->response.passwd, first.response.passwd);
  EXPECT_EQ(again->response.timeout_ms, 10000);  // negotiated from this request
  // The session's previous connection is closed without a frame.
  EXPECT_TRUE(first.connection.closed_without_data());
  // The ephemeral still belongs to the live session.
  EXPECT_EQ(call(again->connection, 1, OpCode::kExists, path_body("/mine", false)).header.err,
            Error::kOk);

  zk::wire::ConnectRequest wrong = resume;
  wrong.passwd = std::string(16, 'x');
  auto refused = open_session(zkd_->host(), zkd_->port(), wrong);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->response_size, 37u);
  EXPECT_EQ(refused->response.timeout_ms, 0);
  EXPECT_EQ(refused->response.session_id, 0);
  EXPECT_EQ(refused->response.passwd, std::string(16, '\0'));
  EXPECT_TRUE(refused->connection.closed_without_data());

  zk::wire::ConnectRequest unknown = new_session_request(10000);
  unknown.session_id = 0x0123456789;
  auto unknown_reply = open_session(zkd_->host(), zkd_->port(), unknown);
  ASSERT_TRUE(unknown_reply);
  EXPECT_EQ(unknown_reply->response.timeout_ms, 0);
  EXPECT_EQ(unknown_reply->response.session_id, 0);
}

TEST_F(ZkdServerTest, ClientAheadOfServerIsDisconnectedWithoutReply) {
  auto request = new_session_request(30000);
  request.last_zxid_seen = int64_t{1} << 40;
  auto c = RawConnection::connect(zkd_->host(), zkd_->port());
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->send_frame(encode(request)));
  EXPECT_TRUE(c->closed_without_data());
}

TEST_F(ZkdServerTest, UnknownOpcodeGetsUnimplementedThenClose) {
  auto s = connect();
  auto reply = call(s.connection, 5, static_cast<OpCode>(999));
  EXPECT_EQ(reply.header.err, Error::kUnimplemented);
  EXPECT_TRUE(s.connection.closed_without_data());
}

TEST_F(ZkdServerTest, AuthDigestIsAcceptedAndUnknownSchemeFails) {
  auto s = connect();
  zk::wire::AuthPacket digest{0, "digest", std::string("alice:pw")};
  auto ok = call(s.connection, -4, OpCode::kAuth, encode(digest));
  EXPECT_EQ(ok.header.err, Error::kOk);
  EXPECT_EQ(ok.header.zxid, 0);

  zk::wire::AuthPacket bogus{0, "kerberos-ish", std::string("x")};
  auto failed = call(s.connection, -4, OpCode::kAuth, encode(bogus));
  EXPECT_EQ(failed.header.err, Error::kAuthFailed);
  EXPECT_TRUE(s.connection.closed_without_data());
}

TEST_F(ZkdServerTest, OversizeFrameClosesThatConnectionOnly) {
  auto victim = connect();
  auto bystander = connect();
  std::string huge_length;
  zk::wire::Writer(huge_length).int32(1048576);
  ASSERT_TRUE(victim.connection.send_bytes(huge_length));
  EXPECT_TRUE(victim.connection.closed_without_data());

  auto negative = connect();
  std::string negative_length;
  zk::wire::Writer(negative_length).int32(-5);
  ASSERT_TRUE(negative.connection.send_bytes(negative_length));
  EXPECT_TRUE(negative.connection.closed_without_data());

  EXPECT_EQ(call(bystander.connection, 1, OpCode::kExists, path_body("/", false)).header.err,
            Error::kOk);
}

TEST_F(ZkdServerTest, FrameOfExactlyMaxLengthIsAccepted) {
  auto s = connect();
  // setData of a node that does not exist, padded to exactly 1048575 bytes.
  std::string payload;
  zk::wire::Writer w(payload);
  zk::wire::RequestHeader{1, OpCode::kSetData}.write(w);
  zk::wire::SetDataRequest r{"/nope", std::string(1048575 - 8 - 4 - 5 - 4 - 4, 'x'), -1};
  r.write(w);
  ASSERT_EQ(payload.size(), 1048575u);
  ASSERT_TRUE(s.connection.send_frame(payload));
  auto frame = s.connection.read_frame();
  ASSERT_TRUE(frame);
  EXPECT_EQ(parse_reply(*frame)->header.err, Error::kNoNode);
}

TEST_F(ZkdServerTest, FourLetterWordsAnswerAsApache) {
  EXPECT_EQ(four_letter_word(zkd_->host(), zkd_->port(), "ruok"), "imok");
  EXPECT_EQ(four_letter_word(zkd_->host(), zkd_->port(), "isro"), "rw");
  auto srvr = four_letter_word(zkd_->host(), zkd_->port(), "srvr");
  ASSERT_TRUE(srvr);
  EXPECT_THAT(*srvr, StartsWith("Zookeeper version: 3.8.0-zk-"));
  EXPECT_THAT(*srvr, HasSubstr(", built on "));
  EXPECT_THAT(*srvr, HasSubstr("\nMode: standalone\n"));
  EXPECT_THAT(*srvr, HasSubstr("\nNode count: 5\n"));
  auto mntr = four_letter_word(zkd_->host(), zkd_->port(), "mntr");
  ASSERT_TRUE(mntr);
  EXPECT_THAT(*mntr, HasSubstr("zk_server_state\tstandalone\n"));
  EXPECT_THAT(*mntr, HasSubstr("zk_znode_count\t5\n"));
  EXPECT_THAT(*mntr, HasSubstr("zk_approximate_data_size\t44\n"));
}

TEST_F(ZkdServerTest, StatsFollowSessionsAndWatches) {
  auto s = connect();
  ASSERT_EQ(call(s.connection, 1, OpCode::kCreate, create_body("/e", "", 1)).header.err,
            Error::kOk);
  ASSERT_EQ(call(s.connection, 2, OpCode::kGetData, path_body("/e", true)).header.err, Error::kOk);
  std::string sid = "0x" + [&] {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(s.response.session_id));
    return std::string(buf);
  }();
  auto cons = four_letter_word(zkd_->host(), zkd_->port(), "cons");
  ASSERT_TRUE(cons);
  EXPECT_THAT(*cons, HasSubstr("sid=" + sid + ",lop=GETD"));
  auto dump = four_letter_word(zkd_->host(), zkd_->port(), "dump");
  ASSERT_TRUE(dump);
  EXPECT_THAT(*dump, HasSubstr(sid + ":\n\t/e\n"));
  EXPECT_EQ(four_letter_word(zkd_->host(), zkd_->port(), "wchs"),
            "1 connections watching 1 paths\nTotal watches:1\n");
  EXPECT_EQ(four_letter_word(zkd_->host(), zkd_->port(), "wchc"), sid + "\n\t/e\n\n");
  EXPECT_EQ(four_letter_word(zkd_->host(), zkd_->port(), "wchp"), "/e\n\t" + sid + "\n\n");
  auto srvr = four_letter_word(zkd_->host(), zkd_->port(), "srvr");
  ASSERT_TRUE(srvr);
  EXPECT_THAT(*srvr, HasSubstr("\nNode count: 6\n"));
}

TEST(ZkdWhitelist, WordsOutsideTheWhitelistAreRefused) {
  ZkdOptions options = zkd_options();
  options.four_letter_whitelist = "ruok";
  auto started = ZkdProcess::start(options);
  ASSERT_TRUE(started.process) << started.error;
  auto& zkd = *started.process;
  EXPECT_EQ(four_letter_word(zkd.host(), zkd.port(), "ruok"), "imok");
  EXPECT_EQ(four_letter_word(zkd.host(), zkd.port(), "mntr"),
            "mntr is not executed because it is not in the whitelist.\n");
  auto srvr = four_letter_word(zkd.host(), zkd.port(), "srvr");  // always on
  ASSERT_TRUE(srvr);
  EXPECT_THAT(*srvr, StartsWith("Zookeeper version: "));
}

TEST(ZkdExpiry, ExpiredSessionLosesEphemeralsAndWatchersHearOfIt) {
  ZkdOptions options = zkd_options();
  options.tick_time_ms = 200;  // sessions: [400, 4000] ms
  auto started = ZkdProcess::start(options);
  ASSERT_TRUE(started.process) << started.error;
  auto& zkd = *started.process;

  auto doomed = open_session(zkd.host(), zkd.port(), new_session_request(400));
  ASSERT_TRUE(doomed);
  EXPECT_EQ(doomed->response.timeout_ms, 400);
  auto watcher = open_session(zkd.host(), zkd.port(), new_session_request(4000));
  ASSERT_TRUE(watcher);

  ASSERT_TRUE(doomed->connection.send_request(1, OpCode::kCreate, create_body("/lease", "", 1)));
  auto created = doomed->connection.read_frame();
  ASSERT_TRUE(created);
  ASSERT_EQ(parse_reply(*created)->header.err, Error::kOk);

  ASSERT_TRUE(watcher->connection.send_request(1, OpCode::kExists, path_body("/lease", true)));
  auto exists = watcher->connection.read_frame();
  ASSERT_TRUE(exists);
  ASSERT_EQ(parse_reply(*exists)->header.err, Error::kOk);

  // The doomed session now stays silent; the watcher waits for the event
  // (well within its own 4 s timeout).
  auto e = read_notification(watcher->connection, std::chrono::seconds(3));
  ASSERT_TRUE(e) << zkd.log();
  EXPECT_EQ(e->type, zk::wire::EventType::kNodeDeleted);
  EXPECT_EQ(e->path, "/lease");

  // Its connection was closed with no frame, and resuming is refused.
  EXPECT_TRUE(doomed->connection.closed_without_data());
  zk::wire::ConnectRequest resume = new_session_request(400);
  resume.session_id = doomed->response.session_id;
  resume.passwd = doomed->response.passwd;
  auto refused = open_session(zkd.host(), zkd.port(), resume);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->response.timeout_ms, 0);
  EXPECT_THAT(zkd.log(), HasSubstr("expired"));
}

TEST(ZkdLimits, ConnectionsBeyondMaxClientCnxnsAreClosed) {
  ZkdOptions options = zkd_options();
  options.max_client_cnxns = 2;
  auto started = ZkdProcess::start(options);
  ASSERT_TRUE(started.process) << started.error;
  auto& zkd = *started.process;
  auto a = open_session(zkd.host(), zkd.port(), new_session_request());
  auto b = open_session(zkd.host(), zkd.port(), new_session_request());
  ASSERT_TRUE(a && b);
  auto third = RawConnection::connect(zkd.host(), zkd.port());
  ASSERT_TRUE(third);
  EXPECT_TRUE(third->closed_without_data());
}

TEST(ZkdProcessLife, SigtermStopsCleanly) {
  auto started = ZkdProcess::start(zkd_options());
  ASSERT_TRUE(started.process) << started.error;
  auto& zkd = *started.process;
  auto s = open_session(zkd.host(), zkd.port(), new_session_request());
  ASSERT_TRUE(s);
  ASSERT_TRUE(zkd.signal(SIGTERM));
  auto status = zkd.wait_for_exit(std::chrono::seconds(10));
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
  EXPECT_TRUE(s->connection.closed_without_data());
}

TEST(ZkdProcessLife, BadConfigurationFailsNamingTheKey) {
  ZkdOptions options = zkd_options();
  options.raw_config = "dataDir={dataDir}\nclientPort={port}\ntickTime=soon\n";
  auto started = ZkdProcess::start(options);
  EXPECT_FALSE(started.process);
  EXPECT_THAT(started.error, HasSubstr("tickTime"));
  EXPECT_THAT(started.error, HasSubstr(":3"));
}

TEST(ZkdCommandLine, HelpAndBadArguments) {
  auto help = run_zkd({"--help"}, std::chrono::seconds(10));
  EXPECT_TRUE(WIFEXITED(help.status) && WEXITSTATUS(help.status) == 0);
  EXPECT_THAT(help.output, HasSubstr("--config"));
  auto bad = run_zkd({"--no-such-flag"}, std::chrono::seconds(10));
  EXPECT_TRUE(WIFEXITED(bad.status));
  EXPECT_NE(WEXITSTATUS(bad.status), 0);
  EXPECT_THAT(bad.output, HasSubstr("Usage"));
  auto none = run_zkd({}, std::chrono::seconds(10));
  EXPECT_TRUE(WIFEXITED(none.status));
  EXPECT_NE(WEXITSTATUS(none.status), 0);
}

}  // namespace
}  // namespace zk::lab
