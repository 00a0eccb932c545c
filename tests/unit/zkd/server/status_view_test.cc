// SPDX-License-Identifier: Apache-2.0
// The status view of a whole standalone server (whole_server.h): what an
// operator reads with the four-letter words after clients did something
// (sessions, nodes, ephemerals, watches, requests answered), and what srst
// resets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <sstream>
#include <string>

#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "tests/common/request_bodies.h"
#include "tests/unit/zkd/server/whole_server.h"

namespace zkd::server {
namespace {

using std::chrono::milliseconds;
using test_support::WholeServerTest;
using ::testing::HasSubstr;
using zk::wire::Error;
using zk::wire::OpCode;

class StatusViewTest : public WholeServerTest {
 protected:
  std::string word(const std::string& w) {
    auto probe = open();
    return server_->client_handler().four_letter_word(*probe, w, "");
  }
  // mntr's lines (zk_<key>\t<value>) by key, without the prefix.
  std::map<std::string, std::string> mntr() {
    std::map<std::string, std::string> values;
    std::istringstream lines(word("mntr"));
    for (std::string line; std::getline(lines, line);) {
      const auto tab = line.find('\t');
      EXPECT_TRUE(line.starts_with("zk_") && tab != std::string::npos) << line;
      if (tab != std::string::npos) values[line.substr(3, tab - 3)] = line.substr(tab + 1);
    }
    return values;
  }
  // Two sessions: the first creates /a, the second the ephemerals /e1, /e2.
  void populate() {
    owner_ = open();
    other_ = open();
    connect(*owner_, 2000);
    connect(*other_, 2000);
    send(*owner_, 1, OpCode::kCreate, zk::test::create_body("/a", "data"));
    ASSERT_EQ(next(*owner_).first.err, Error::kOk);
    send(*other_, 1, OpCode::kCreate, zk::test::create_body("/e1", "x", /*flags=*/1));
    ASSERT_EQ(next(*other_).first.err, Error::kOk);
    send(*other_, 2, OpCode::kCreate, zk::test::create_body("/e2", "y", /*flags=*/1));
    ASSERT_EQ(next(*other_).first.err, Error::kOk);
  }

  std::shared_ptr<test_support::TestConnection> owner_, other_;
};

TEST_F(StatusViewTest, AStandaloneServerSaysSoAndServes) {
  EXPECT_EQ(word("ruok"), "imok");
  EXPECT_EQ(word("isro"), "rw");
  EXPECT_THAT(word("srvr"), HasSubstr("Mode: standalone\n"));
  EXPECT_EQ(mntr()["server_state"], "standalone");
}

TEST_F(StatusViewTest, CountsFollowWhatClientsDid) {
  auto before = mntr();
  populate();
  auto after = mntr();
  EXPECT_EQ(std::stoll(after["znode_count"]), std::stoll(before["znode_count"]) + 3);
  EXPECT_EQ(after["ephemerals_count"], "2");
  EXPECT_EQ(after["global_sessions"], "2");
  EXPECT_EQ(after["outstanding_requests"], "0");
  EXPECT_GE(std::stoll(after["packets_received"]), 5);
  const std::string srvr = word("srvr");
  EXPECT_THAT(srvr, HasSubstr("Node count: " + after["znode_count"] + "\n"));
  EXPECT_THAT(word("dump"), HasSubstr("/e1"));
}

TEST_F(StatusViewTest, AWatchLeftByAReadIsCounted) {
  populate();
  EXPECT_EQ(mntr()["watch_count"], "0");
  send(*owner_, 2, OpCode::kGetData, zk::test::path_body("/a", /*watch=*/true));
  ASSERT_EQ(next(*owner_).first.err, Error::kOk);
  EXPECT_EQ(mntr()["watch_count"], "1");
  EXPECT_THAT(word("wchp"), HasSubstr("/a"));
}

// A session expired in simulated time leaves the counts.
TEST_F(StatusViewTest, AnExpiredSessionAndItsEphemeralsLeaveTheCounts) {
  populate();
  auto before = mntr();
  // The owner keeps its session; the other goes silent past its timeout.
  for (int i = 0; i < 6; ++i) {
    advance(milliseconds(500));
    send(*owner_, zk::wire::kPingXid, OpCode::kPing, "");
    next(*owner_);
  }
  auto after = mntr();
  EXPECT_EQ(after["ephemerals_count"], "0");
  EXPECT_EQ(after["global_sessions"], "1");
  EXPECT_EQ(std::stoll(after["znode_count"]), std::stoll(before["znode_count"]) - 2);
}

TEST_F(StatusViewTest, SrstResetsThePacketCounts) {
  populate();
  EXPECT_NE(mntr()["packets_sent"], "0");
  word("srst");
  EXPECT_EQ(mntr()["packets_sent"], "0");
}

}  // namespace
}  // namespace zkd::server
