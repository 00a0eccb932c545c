// SPDX-License-Identifier: Apache-2.0
// zkd's durability as a user sees it: what a client was told is written
// survives a SIGKILL and a restart on the same data dir; a torn log tail is
// repaired, a corrupt log stops the start; snapshots + log replay give the
// same tree; zkd dump-log / dump-snapshot print what was written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"
#include "tests/lab/lab_test_util.h"
#include "tests/lab/raw_client.h"
#include "zklab/process/zkd_process.h"

namespace zk::lab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using zk::wire::encode;
using zk::wire::Error;
using zk::wire::OpCode;

constexpr int32_t kSequential = 2;
constexpr int32_t kEphemeral = 1;

// Files in a directory whose names start with `prefix`, sorted.
std::vector<std::string> files(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    auto name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.find(".tmp") == std::string::npos) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_all(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

class DurabilityTest : public ::testing::Test {
 protected:
  void snapshots_and_replay(const std::string& compression);

  void start(std::vector<std::string> extra = {}) {
    ZkdOptions options = zkd_options();
    options.extra_lines = {"preAllocSize=256"};
    options.extra_lines.insert(options.extra_lines.end(), extra.begin(), extra.end());
    auto started = ZkdProcess::start(options);
    ASSERT_TRUE(started.process) << started.error;
    zkd_ = std::move(started.process);
  }

  void TearDown() override {
    if (HasFailure() && zkd_) std::cerr << "---- zkd log ----\n" << zkd_->log();
  }

  void kill_and_restart() {
    ASSERT_TRUE(zkd_->kill());
    auto error = zkd_->restart();
    ASSERT_TRUE(error.empty()) << error;
  }

  fs::path version2() const { return zkd_->data_dir() / "version-2"; }

  Session connect(int32_t timeout_ms = 30000) { return connect_session(*zkd_, timeout_ms); }

  std::optional<zk::wire::GetDataResponse> get(RawConnection& c, const std::string& path) {
    auto r = call(c, ++xid_, OpCode::kGetData, path_body(path));
    if (r.header.err != Error::kOk) return std::nullopt;
    zk::wire::GetDataResponse data;
    EXPECT_TRUE(zk::wire::decode(r.body, data));
    return data;
  }

  std::vector<std::string> children(RawConnection& c, const std::string& path) {
    auto r = call(c, ++xid_, OpCode::kGetChildren, path_body(path));
    EXPECT_EQ(r.header.err, Error::kOk);
    zk::wire::GetChildrenResponse list;
    EXPECT_TRUE(zk::wire::decode(r.body, list));
    std::sort(list.children.begin(), list.children.end());
    return list.children;
  }

  Error create(RawConnection& c, const std::string& path, const std::string& data,
               int32_t flags = 0) {
    return call(c, ++xid_, OpCode::kCreate, create_body(path, data, flags)).header.err;
  }

  // Everything a client can see of a subtree: path -> data, version, cversion.
  std::map<std::string, std::string> tree(RawConnection& c, const std::string& root) {
    std::map<std::string, std::string> out;
    auto node = get(c, root);
    if (!node) return out;
    out[root] = (node->data ? *node->data : "<null>") + " v" + std::to_string(node->stat.version) +
                " cv" + std::to_string(node->stat.cversion) + " czxid" +
                std::to_string(node->stat.czxid) + " mzxid" + std::to_string(node->stat.mzxid);
    for (const auto& child : children(c, root)) {
      auto sub = tree(c, root == "/" ? "/" + child : root + "/" + child);
      out.insert(sub.begin(), sub.end());
    }
    return out;
  }

  std::unique_ptr<ZkdProcess> zkd_;
  int32_t xid_ = 0;
};

TEST_F(DurabilityTest, RestartAfterSigkillKeepsZnodesDataVersionsAndSequenceCounters) {
  start();
  {
    auto s = connect();
    auto& c = s.connection;
    ASSERT_EQ(create(c, "/app", "v0"), Error::kOk);
    for (int i = 1; i <= 2; ++i) {
      auto r = call(c, ++xid_, OpCode::kSetData,
                    encode(zk::wire::SetDataRequest{"/app", "v" + std::to_string(i), i - 1}));
      ASSERT_EQ(r.header.err, Error::kOk);
    }
    for (int i = 0; i < 3; ++i) ASSERT_EQ(create(c, "/app/seq-", "", kSequential), Error::kOk);
    ASSERT_EQ(
        call(c, ++xid_, OpCode::kDelete, encode(zk::wire::DeleteRequest{"/app/seq-0000000001", -1}))
            .header.err,
        Error::kOk);
  }
  kill_and_restart();

  auto s = connect();
  auto& c = s.connection;
  auto app = get(c, "/app");
  ASSERT_TRUE(app);
  EXPECT_EQ(app->data, "v2");
  EXPECT_EQ(app->stat.version, 2);
  EXPECT_EQ(children(c, "/app"), (std::vector<std::string>{"seq-0000000000", "seq-0000000002"}));
  // The parent's sequence counter survived: the next name is not reused.
  auto r = call(c, ++xid_, OpCode::kCreate, create_body("/app/seq-", "", kSequential));
  ASSERT_EQ(r.header.err, Error::kOk);
  zk::wire::PathRecord created;
  ASSERT_TRUE(zk::wire::decode(r.body, created));
  EXPECT_EQ(created.path, "/app/seq-0000000003");
}

TEST_F(DurabilityTest, ZxidsContinueAfterRestartSoClientsAreNotRefused) {
  start();
  int64_t last_zxid = 0;
  {
    auto s = connect();
    auto r = call(s.connection, ++xid_, OpCode::kCreate, create_body("/z", ""));
    ASSERT_EQ(r.header.err, Error::kOk);
    last_zxid = r.header.zxid;
  }
  kill_and_restart();
  auto request = new_session_request(30000);
  request.last_zxid_seen = last_zxid;  // a client that saw our last write
  auto s = open_session(zkd_->host(), zkd_->port(), request);
  ASSERT_TRUE(s) << "a client that saw zxid " << last_zxid << " was refused";
  auto r = call(s->connection, ++xid_, OpCode::kCreate, create_body("/z2", ""));
  ASSERT_EQ(r.header.err, Error::kOk);
  EXPECT_GT(r.header.zxid, last_zxid);
}

TEST_F(DurabilityTest, EphemeralSurvivesSigkillWhenItsClientResumesInTime) {
  start();
  zk::wire::ConnectResponse session;
  {
    auto s = connect(40000);
    session = s.response;
    ASSERT_EQ(create(s.connection, "/eph", "mine", kEphemeral), Error::kOk);
  }
  kill_and_restart();

  auto resume = new_session_request(40000);
  resume.session_id = session.session_id;
  resume.passwd = session.passwd;
  auto s = open_session(zkd_->host(), zkd_->port(), resume);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->response.session_id, session.session_id);
  EXPECT_GT(s->response.timeout_ms, 0) << "the restored session was refused";
  auto eph = get(s->connection, "/eph");
  ASSERT_TRUE(eph);
  EXPECT_EQ(eph->stat.ephemeral_owner, session.session_id);

  // A wrong password is still refused after the restart.
  auto forged = resume;
  forged.passwd[0] ^= 1;
  auto refused = open_session(zkd_->host(), zkd_->port(), forged);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->response.timeout_ms, 0);
}

TEST_F(DurabilityTest, EphemeralGoesWhenItsClientDoesNotComeBack) {
  start();
  {
    auto s = connect(4000);  // the smallest timeout tickTime 2000 allows
    ASSERT_EQ(create(s.connection, "/gone", "", kEphemeral), Error::kOk);
  }
  kill_and_restart();

  // Another session watches the node and waits for the expiry to delete it.
  auto watcher = connect();
  auto& c = watcher.connection;
  auto r = call(c, ++xid_, OpCode::kExists, path_body("/gone", true));
  ASSERT_EQ(r.header.err, Error::kOk) << "the ephemeral must be restored first";
  auto e = read_notification(c, std::chrono::seconds(20));
  ASSERT_TRUE(e) << "the restored session did not expire";
  EXPECT_EQ(e->type, zk::wire::EventType::kNodeDeleted);
  EXPECT_EQ(e->path, "/gone");
}

TEST_F(DurabilityTest, TornLastRecordIsRepairedAndStartUpGoesOn) {
  start();
  {
    auto s = connect();
    for (int i = 0; i < 10; ++i) {
      ASSERT_EQ(create(s.connection, "/t" + std::to_string(i), "data"), Error::kOk);
    }
  }
  ASSERT_TRUE(zkd_->kill());
  auto logs = files(version2(), "log.");
  ASSERT_FALSE(logs.empty());
  // The file is preallocated with zeros: zero the last bytes of its last
  // record, as a crash in the middle of an append would leave it.
  auto path = version2() / logs.back();
  std::string bytes = read_all(path);
  size_t end = bytes.find_last_not_of('\0');
  ASSERT_NE(end, std::string::npos);
  for (size_t i = end - 3; i <= end; ++i) bytes[i] = '\0';
  write_all(path, bytes);

  auto error = zkd_->restart();
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_THAT(zkd_->log(), HasSubstr("torn"));
  EXPECT_THAT(zkd_->log(), HasSubstr(logs.back()));
  auto s = connect();
  for (int i = 0; i < 9; ++i) EXPECT_TRUE(get(s.connection, "/t" + std::to_string(i))) << i;
  EXPECT_FALSE(get(s.connection, "/t9")) << "the torn record was the last create";
  // Writing goes on after the repaired tail.
  EXPECT_EQ(create(s.connection, "/t9", "again"), Error::kOk);
  kill_and_restart();
  auto again = connect();
  auto t9 = get(again.connection, "/t9");
  ASSERT_TRUE(t9);
  EXPECT_EQ(t9->data, "again");
}

TEST_F(DurabilityTest, FlippedByteInTheMiddleOfTheLogStopsStartUpNamingFileAndOffset) {
  start();
  {
    auto s = connect();
    for (int i = 0; i < 10; ++i)
      ASSERT_EQ(create(s.connection, "/c" + std::to_string(i), "x"), Error::kOk);
  }
  ASSERT_TRUE(zkd_->kill());
  auto logs = files(version2(), "log.");
  ASSERT_EQ(logs.size(), 1u);
  auto path = version2() / logs.front();
  std::string bytes = read_all(path);
  // docs/storage-format.md: a 16-byte header, then records; this byte is
  // inside the first record (its zxid), with nine whole records after it.
  bytes[16 + 9] ^= 0x5a;
  write_all(path, bytes);

  auto error = zkd_->restart();
  ASSERT_FALSE(error.empty()) << "zkd started on a corrupt log";
  auto status = zkd_->exit_status();
  ASSERT_TRUE(status);
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 3);
  EXPECT_THAT(zkd_->log(), HasSubstr(logs.front()));
  EXPECT_THAT(zkd_->log(), HasSubstr("offset 16"));
}

// Writes, deletes and setData across several snapshots (written with
// `compression`, zoo.cfg's snapshot.compression.method), then SIGKILL: the
// tree after the restart is the one before.
void DurabilityTest::snapshots_and_replay(const std::string& compression) {
  std::vector<std::string> extra = {"snapCount=100"};
  if (!compression.empty()) extra.push_back("snapshot.compression.method=" + compression);
  start(extra);
  std::map<std::string, std::string> before;
  {
    auto s = connect();
    auto& c = s.connection;
    ASSERT_EQ(create(c, "/s", ""), Error::kOk);
    for (int i = 0; i < 300; ++i) {
      ASSERT_EQ(create(c, "/s/n" + std::to_string(i), std::to_string(i)), Error::kOk);
      if (i % 3 == 0) {
        auto r = call(c, ++xid_, OpCode::kSetData,
                      encode(zk::wire::SetDataRequest{"/s/n" + std::to_string(i), "x", -1}));
        ASSERT_EQ(r.header.err, Error::kOk);
      }
      if (i % 7 == 0) {
        auto r = call(c, ++xid_, OpCode::kDelete,
                      encode(zk::wire::DeleteRequest{"/s/n" + std::to_string(i), -1}));
        ASSERT_EQ(r.header.err, Error::kOk);
      }
    }
    before = tree(c, "/s");
  }
  ASSERT_GT(before.size(), 250u);
  kill_and_restart();
  EXPECT_THAT(zkd_->log(), HasSubstr("loaded"));
  auto snapshots = files(version2(), "snapshot.");
  EXPECT_GE(snapshots.size(), 2u);
  EXPECT_LE(snapshots.size(), 4u) << "autopurge keeps 3 (plus one being purged)";
  auto s = connect();
  EXPECT_EQ(tree(s.connection, "/s"), before);
  // The file says how it is compressed: format version 2 (1 when not).
  std::ifstream snapshot(version2() / snapshots.back(), std::ios::binary);
  char header[12] = {};
  snapshot.read(header, sizeof header);
  EXPECT_EQ(header[8], compression.empty() ? 1 : 2) << snapshots.back();
}

TEST_F(DurabilityTest, SnapshotsPlusLogReplayGiveTheSameTree) { snapshots_and_replay(""); }
TEST_F(DurabilityTest, SnappySnapshotsPlusLogReplayGiveTheSameTree) {
  snapshots_and_replay("snappy");
}
TEST_F(DurabilityTest, GzSnapshotsPlusLogReplayGiveTheSameTree) { snapshots_and_replay("gz"); }

TEST_F(DurabilityTest, PipelinedRequestsAreAnsweredInOrderAndReadsSeeEarlierWrites) {
  start();
  auto s = connect();
  auto& c = s.connection;
  ASSERT_TRUE(c.send_request(1, OpCode::kCreate, create_body("/p", "one")));
  ASSERT_TRUE(c.send_request(2, OpCode::kGetData, path_body("/p")));
  ASSERT_TRUE(
      c.send_request(3, OpCode::kSetData, encode(zk::wire::SetDataRequest{"/p", "two", 0})));
  ASSERT_TRUE(c.send_request(4, OpCode::kGetData, path_body("/p")));
  ASSERT_TRUE(c.send_request(5, OpCode::kSync, encode(zk::wire::PathRecord{"/p"})));
  ASSERT_TRUE(c.send_request(6, OpCode::kPing));
  ASSERT_TRUE(c.send_request(7, OpCode::kCreate, create_body("/p", "dup")));
  std::vector<int32_t> xids;
  std::vector<Reply> replies;
  for (int i = 0; i < 7; ++i) {
    auto frame = c.read_frame();
    ASSERT_TRUE(frame) << "reply " << i;
    auto reply = parse_reply(*frame);
    ASSERT_TRUE(reply);
    xids.push_back(reply->header.xid);
    replies.push_back(*reply);
  }
  EXPECT_EQ(xids, (std::vector<int32_t>{1, 2, 3, 4, 5, zk::wire::kPingXid, 7}));
  zk::wire::GetDataResponse first, second;
  ASSERT_TRUE(zk::wire::decode(replies[1].body, first));
  ASSERT_TRUE(zk::wire::decode(replies[3].body, second));
  EXPECT_EQ(first.data, "one");
  EXPECT_EQ(second.data, "two");
  EXPECT_EQ(replies[6].header.err, Error::kNodeExists);
  EXPECT_GT(replies[6].header.zxid, replies[2].header.zxid) << "an error txn takes a zxid";
}

TEST_F(DurabilityTest, RequestPipelinedBehindTheHandshakeWaitsForTheSession) {
  start();
  auto c = RawConnection::connect(zkd_->host(), zkd_->port());
  ASSERT_TRUE(c);
  std::string connect_frame;
  {
    zk::wire::Writer w(connect_frame);
    new_session_request(30000).write(w);
  }
  ASSERT_TRUE(c->send_frame(connect_frame));
  ASSERT_TRUE(c->send_request(1, OpCode::kCreate, create_body("/early", "")));
  ASSERT_TRUE(c->send_request(2, OpCode::kExists, path_body("/early")));
  auto response = c->read_frame();
  ASSERT_TRUE(response);
  zk::wire::ConnectResponse connected;
  ASSERT_TRUE(zk::wire::decode(*response, connected));
  EXPECT_NE(connected.session_id, 0);
  for (int32_t xid : {1, 2}) {
    auto frame = c->read_frame();
    ASSERT_TRUE(frame);
    auto reply = parse_reply(*frame);
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->header.xid, xid);
    EXPECT_EQ(reply->header.err, Error::kOk);
  }
}

TEST_F(DurabilityTest, CleanShutdownExitsZeroAndKeepsEverything) {
  start();
  {
    auto s = connect();
    ASSERT_EQ(create(s.connection, "/kept", "yes"), Error::kOk);
  }
  ASSERT_TRUE(zkd_->signal(SIGTERM));
  auto status = zkd_->wait_for_exit(std::chrono::seconds(10));
  ASSERT_TRUE(status);
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
  auto error = zkd_->restart();
  ASSERT_TRUE(error.empty()) << error;
  auto s = connect();
  auto kept = get(s.connection, "/kept");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->data, "yes");
}

TEST_F(DurabilityTest, ForceSyncNoWarnsLoudly) {
  start({"forceSync=no"});
  EXPECT_THAT(zkd_->log(), HasSubstr("forceSync=no"));
  EXPECT_THAT(zkd_->log(), HasSubstr("MAY BE LOST"));
}

TEST_F(DurabilityTest, DumpLogAndDumpSnapshotPrintWhatWasWritten) {
  // At most two snapshots after snapshot.0, so autopurge (3) keeps every file.
  start({"snapCount=30"});
  {
    auto s = connect();
    ASSERT_EQ(create(s.connection, "/dumped", "hello"), Error::kOk);
    ASSERT_EQ(create(s.connection, "/caf\xC3\xA9", ""), Error::kOk);  // "/café"
    for (int i = 0; i < 40; ++i)
      ASSERT_EQ(create(s.connection, "/d" + std::to_string(i), ""), Error::kOk);
  }
  ASSERT_TRUE(zkd_->signal(SIGTERM));
  ASSERT_TRUE(zkd_->wait_for_exit(std::chrono::seconds(10)));

  auto logs = files(version2(), "log.");
  ASSERT_FALSE(logs.empty());
  std::string all_text, all_json;
  for (const auto& log : logs) {
    auto text = run_zkd({"dump-log", (version2() / log).string()}, std::chrono::seconds(10));
    ASSERT_TRUE(WIFEXITED(text.status) && WEXITSTATUS(text.status) == 0) << text.output;
    all_text += text.output;
    auto json =
        run_zkd({"dump-log", (version2() / log).string(), "--json"}, std::chrono::seconds(10));
    ASSERT_TRUE(WIFEXITED(json.status) && WEXITSTATUS(json.status) == 0) << json.output;
    all_json += json.output;
  }
  EXPECT_THAT(all_text, HasSubstr("type=create path=/dumped data_length=5"));
  EXPECT_THAT(all_text, HasSubstr("type=createSession"));
  EXPECT_THAT(all_json, HasSubstr("\"path\":\"/dumped\""));
  EXPECT_THAT(all_json, HasSubstr("\"data_hex\":\"68656c6c6f\""));
  EXPECT_THAT(all_json, HasSubstr("{\"format\":1,\"zxid\":\"0x"));
  // UTF-8 stays UTF-8: not one escape per byte ("/caf\u00c3\u00a9" read as "/cafÃ©").
  EXPECT_THAT(all_json, HasSubstr("\"path\":\"/caf\xC3\xA9\""));

  auto snapshots = files(version2(), "snapshot.");
  ASSERT_FALSE(snapshots.empty());
  auto snap = run_zkd({"dump-snapshot", (version2() / snapshots.back()).string()},
                      std::chrono::seconds(10));
  ASSERT_TRUE(WIFEXITED(snap.status) && WEXITSTATUS(snap.status) == 0) << snap.output;
  EXPECT_THAT(snap.output, HasSubstr("kind=node path=/dumped data_length=5"));
  EXPECT_THAT(snap.output, HasSubstr("kind=session"));

  // A damaged segment: the good records, then the bad one's offset, exit 1.
  auto path = version2() / logs.front();
  std::string bytes = read_all(path);
  bytes[16 + 9] ^= 0x5a;
  write_all(path, bytes);
  auto bad = run_zkd({"dump-log", path.string()}, std::chrono::seconds(10));
  ASSERT_TRUE(WIFEXITED(bad.status));
  EXPECT_EQ(WEXITSTATUS(bad.status), 1);
  EXPECT_THAT(bad.output, HasSubstr("offset 16"));
}

}  // namespace
}  // namespace zk::lab
