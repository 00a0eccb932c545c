// SPDX-License-Identifier: Apache-2.0
#include "zkctl/output_format.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace zkctl {
namespace {

class OutputFormat : public ::testing::Test {
 protected:
  // Times are rendered in the local zone; pin it for stable expectations.
  void SetUp() override {
    const char* tz = std::getenv("TZ");
    if (tz != nullptr) saved_tz_ = tz;
    had_tz_ = tz != nullptr;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (had_tz_) {
      setenv("TZ", saved_tz_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

  static zk::wire::Stat sample_stat() {
    zk::wire::Stat s;
    s.czxid = 0x1a;
    s.mzxid = 0x100000002;
    s.ctime = 1700000000123;
    s.mtime = 1700000001000;
    s.version = 4;
    s.cversion = 2;
    s.aversion = 1;
    s.ephemeral_owner = 0x10000abcd0001;
    s.data_length = 5;
    s.num_children = 3;
    s.pzxid = 0x1b;
    return s;
  }

 private:
  std::string saved_tz_;
  bool had_tz_ = false;
};

TEST_F(OutputFormat, ZxidsAreHexLikeZkCli) {
  EXPECT_EQ(format_zxid(0), "0x0");
  EXPECT_EQ(format_zxid(26), "0x1a");
  EXPECT_EQ(format_zxid(0x100000002), "0x100000002");
}

TEST_F(OutputFormat, TimesReadLikeJavaDates) {
  EXPECT_EQ(format_time_ms(0), "Thu Jan 01 00:00:00 UTC 1970");
  EXPECT_EQ(format_time_ms(1700000000123), "Tue Nov 14 22:13:20 UTC 2023");
}

TEST_F(OutputFormat, StatBlockHasAllElevenFieldsInZkCliOrder) {
  EXPECT_EQ(format_stat_lines(sample_stat()),
            "cZxid = 0x1a\n"
            "ctime = Tue Nov 14 22:13:20 UTC 2023\n"
            "mZxid = 0x100000002\n"
            "mtime = Tue Nov 14 22:13:21 UTC 2023\n"
            "pZxid = 0x1b\n"
            "cversion = 2\n"
            "dataVersion = 4\n"
            "aclVersion = 1\n"
            "ephemeralOwner = 0x10000abcd0001\n"
            "dataLength = 5\n"
            "numChildren = 3\n");
}

TEST_F(OutputFormat, HumanResults) {
  EXPECT_EQ(render_result(CreatedResult{"/q0000000001"}, OutputMode::kHuman), "/q0000000001\n");
  EXPECT_EQ(render_result(DataResult{"/a", "hello", std::nullopt}, OutputMode::kHuman), "hello\n");
  EXPECT_EQ(render_result(ChildrenResult{"/", {"a", "b"}, std::nullopt}, OutputMode::kHuman),
            "a\nb\n");
  EXPECT_EQ(render_result(ChildrenResult{"/", {}, std::nullopt}, OutputMode::kHuman), "");
  EXPECT_EQ(render_result(ExistsResult{"/a", true}, OutputMode::kHuman), "true\n");
  EXPECT_EQ(render_result(ExistsResult{"/a", false}, OutputMode::kHuman), "false\n");
  EXPECT_EQ(render_result(DeletedResult{"/a", 1}, OutputMode::kHuman), "");
  EXPECT_EQ(render_result(SetResult{"/a", sample_stat(), false}, OutputMode::kHuman), "");
  EXPECT_EQ(render_result(WatchEventResult{zk::wire::EventType::kNodeDataChanged, "/a"},
                          OutputMode::kHuman),
            "NodeDataChanged /a\n");
}

TEST_F(OutputFormat, HumanGetWithStatPrintsDataThenStat) {
  const std::string out =
      render_result(DataResult{"/a", "hello", sample_stat()}, OutputMode::kHuman);
  EXPECT_EQ(out, "hello\n" + format_stat_lines(sample_stat()));
}

TEST_F(OutputFormat, JsonResults) {
  EXPECT_EQ(render_result(CreatedResult{"/a"}, OutputMode::kJson),
            "{\"format\":2,\"path\":\"/a\"}\n");
  EXPECT_EQ(render_result(DataResult{"/a", "x\"y", std::nullopt}, OutputMode::kJson),
            "{\"format\":2,\"path\":\"/a\",\"data\":\"x\\\"y\"}\n");
  EXPECT_EQ(render_result(ChildrenResult{"/", {"a", "b"}, std::nullopt}, OutputMode::kJson),
            "{\"format\":2,\"path\":\"/\",\"children\":[\"a\",\"b\"]}\n");
  EXPECT_EQ(render_result(ExistsResult{"/a", false}, OutputMode::kJson),
            "{\"format\":2,\"path\":\"/a\",\"exists\":false}\n");
  EXPECT_EQ(render_result(DeletedResult{"/a", 4}, OutputMode::kJson),
            "{\"format\":2,\"path\":\"/a\",\"deleted\":4}\n");
  EXPECT_EQ(render_result(SyncedResult{"/"}, OutputMode::kJson),
            "{\"format\":2,\"path\":\"/\",\"synced\":true}\n");
  EXPECT_EQ(
      render_result(WatchEventResult{zk::wire::EventType::kNodeDeleted, "/a"}, OutputMode::kJson),
      "{\"format\":2,\"event\":\"NodeDeleted\",\"path\":\"/a\"}\n");
}

// zxids and the owner's session id as zkCli's hex strings: as JSON numbers,
// a reader that keeps doubles (jq) would round ids above 2^53.
TEST_F(OutputFormat, JsonStatUsesZkCliNamesWithHexIds) {
  EXPECT_EQ(render_result(StatResult{"/a", sample_stat()}, OutputMode::kJson),
            "{\"format\":2,\"path\":\"/a\",\"stat\":{\"cZxid\":\"0x1a\",\"ctime\":1700000000123,"
            "\"mZxid\":\"0x100000002\",\"mtime\":1700000001000,\"pZxid\":\"0x1b\",\"cversion\":2,"
            "\"dataVersion\":4,\"aclVersion\":1,\"ephemeralOwner\":\"0x10000abcd0001\","
            "\"dataLength\":5,\"numChildren\":3}}\n");
  zk::wire::Stat big;
  big.ephemeral_owner = 72059594037927937;  // above 2^53: a double would round it
  EXPECT_NE(render_result(StatResult{"/e", big}, OutputMode::kJson)
                .find("\"ephemeralOwner\":\"0x10001d1a94a2001\""),
            std::string::npos);
}

TEST_F(OutputFormat, JsonBinaryDataIsBase64UnderItsOwnKey) {
  EXPECT_EQ(render_result(DataResult{"/b", std::string("\xFF\x00\xFE", 3), std::nullopt},
                          OutputMode::kJson),
            "{\"format\":2,\"path\":\"/b\",\"data_base64\":\"/wD+\"}\n");
}

TEST_F(OutputFormat, NullDataIsJsonNullAndAnEmptyLineForPeople) {
  DataResult r{"/n", "", std::nullopt, true};
  EXPECT_EQ(render_result(r, OutputMode::kJson), "{\"format\":2,\"path\":\"/n\",\"data\":null}\n");
  EXPECT_EQ(render_result(r, OutputMode::kHuman), "\n");
  r.null_data = false;
  EXPECT_EQ(render_result(r, OutputMode::kJson), "{\"format\":2,\"path\":\"/n\",\"data\":\"\"}\n");
}

CommandFailure no_node() {
  CommandFailure f = failure_from_zk(zk::wire::Error::kNoNode, "/x");
  f.command = "get";
  return f;
}

TEST_F(OutputFormat, HumanFailureGoesToStderrWithContext) {
  const RenderedFailure r = render_failure(no_node(), OutputMode::kHuman, "zkctl");
  EXPECT_FALSE(r.to_stdout);
  EXPECT_EQ(r.text, "zkctl: get /x: node does not exist (NONODE)\n");
  const RenderedFailure s = render_failure(no_node(), OutputMode::kHuman, "job.zk:3");
  EXPECT_EQ(s.text, "job.zk:3: get /x: node does not exist (NONODE)\n");
}

TEST_F(OutputFormat, JsonFailureGoesToStdoutWithCodeAndName) {
  const RenderedFailure r = render_failure(no_node(), OutputMode::kJson, "zkctl");
  EXPECT_TRUE(r.to_stdout);
  EXPECT_EQ(r.text,
            "{\"format\":2,\"error\":\"NONODE\",\"code\":-101,\"command\":\"get\",\"path\":\"/x\","
            "\"message\":\"node does not exist\"}\n");
}

TEST_F(OutputFormat, NonZooKeeperFailureHasNoCode) {
  CommandFailure f;
  f.exit_code = ExitCode::kConnectionFailed;
  f.name = "CONNECT_FAILED";
  f.message = "cannot connect to 127.0.0.1:1 within 100 ms";
  EXPECT_EQ(render_failure(f, OutputMode::kJson, "zkctl").text,
            "{\"format\":2,\"error\":\"CONNECT_FAILED\",\"message\":\"cannot connect to "
            "127.0.0.1:1 within 100 "
            "ms\"}\n");
  EXPECT_EQ(render_failure(f, OutputMode::kHuman, "zkctl").text,
            "zkctl: cannot connect to 127.0.0.1:1 within 100 ms (CONNECT_FAILED)\n");
}

}  // namespace
}  // namespace zkctl
