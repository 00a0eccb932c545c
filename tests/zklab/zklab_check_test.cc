// SPDX-License-Identifier: Apache-2.0
// `zklab check` as a user runs it: the real zklab binary against a real lab
// of three zkd daemons in a temporary directory, one short run per nemesis.
// Each run must find no violation, and its report must show operations of
// every kind and (with a nemesis) faults injected.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/zklab/zklab_test_util.h"

namespace {

using namespace std::chrono_literals;
using zk::lab::testing::Outcome;
using zk::lab::testing::read_file;

// The number after `prefix` in `text` (the first match), or -1.
long figure(const std::string& text, const std::string& prefix) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(prefix + "(\\d+)"))) return -1;
  return std::stol(m[1].str());
}

// A lab of three, up before each test, which must come down cleanly after it.
class ZklabCheckTest : public zk::lab::testing::ZklabFixture {
 protected:
  void SetUp() override {
    ZklabFixture::SetUp();
    if (HasFatalFailure()) return;
    expect_clean_down_ = true;
    Outcome up = zklab({"up", "-n", "3"});
    ASSERT_EQ(up.exit_code, 0) << up.output;
  }

  // `zklab check --duration 5 --seed 7` with `extra` arguments; checks what
  // every passing run reports and returns its output.
  std::string check_passes(std::vector<std::string> extra) {
    std::vector<std::string> args = {"check", "--duration", "5", "--seed", "7"};
    args.insert(args.end(), extra.begin(), extra.end());
    Outcome r = zklab(args, 90s);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("seed 7"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("\nverdict: ok\n"), std::string::npos) << r.output;
    for (const char* kind : {"read", "write", "cas", "create"}) {
      EXPECT_GT(figure(r.output, std::string("ops: ") + kind + " ok="), 0) << kind << r.output;
    }
    // The watcher saw the registers change.
    EXPECT_GT(figure(r.output, "watch events: "), 0) << r.output;
    // No replica's tree digest differed from its leader's.
    EXPECT_EQ(figure(r.output, "compared with the leader's, "), 0) << r.output;
    // The sessions abandoned on purpose ended; their ephemerals were checked.
    EXPECT_GE(figure(r.output, "abandoned \\("), 1) << r.output;
    EXPECT_GE(figure(r.output, "ephemerals: \\d+ \\("), 1) << r.output;
    return r.output;
  }
};

// No lab: zklab runs without --dir.
class ZklabCheckUsageTest : public zk::lab::testing::ZklabFixture {};

TEST_F(ZklabCheckTest, WithoutNemesisFindsNoViolationAndWritesTheHistory) {
  const auto history = dir_ / "history.txt";
  const std::string out = check_passes({"--history", history.string()});
  EXPECT_EQ(figure(out, "faults injected: "), 0) << out;
  EXPECT_NE(out.find("(2 on purpose)"), std::string::npos) << out;
  const std::string text = read_file(history);
  for (const char* item : {"\nregister ", "\ncreate ", "\nchildren ", "\nephemeral "}) {
    EXPECT_NE(text.find(item), std::string::npos) << item;
  }
}

TEST_F(ZklabCheckTest, UnderKillFindsNoViolation) {
  const std::string out = check_passes({"--nemesis", "kill"});
  EXPECT_GE(figure(out, "faults injected: "), 1) << out;
  EXPECT_NE(out.find("killed node"), std::string::npos) << out;
  EXPECT_NE(out.find("started node"), std::string::npos) << out;
}

TEST_F(ZklabCheckTest, UnderPauseFindsNoViolation) {
  const std::string out = check_passes({"--nemesis", "pause"});
  EXPECT_GE(figure(out, "faults injected: "), 1) << out;
  EXPECT_NE(out.find("paused node"), std::string::npos) << out;
  EXPECT_NE(out.find("resumed node"), std::string::npos) << out;
}

TEST_F(ZklabCheckTest, UnderPartitionFindsNoViolation) {
  const std::string out = check_passes({"--nemesis", "partition"});
  EXPECT_GE(figure(out, "faults injected: "), 1) << out;
  EXPECT_NE(out.find("partition {"), std::string::npos) << out;
  EXPECT_NE(out.find("healed the network"), std::string::npos) << out;
}

// The membership changes among the faults: a node removed by reconfig
// (the leader at times, which hands over) and added back.
TEST_F(ZklabCheckTest, UnderReconfigFindsNoViolation) {
  const std::string out = check_passes({"--nemesis", "reconfig"});
  EXPECT_GE(figure(out, "faults injected: "), 1) << out;
  EXPECT_NE(out.find("removed node "), std::string::npos) << out;
  EXPECT_NE(out.find("added node "), std::string::npos) << out;
}

TEST_F(ZklabCheckTest, UnderBridgeFindsNoViolation) {
  const std::string out = check_passes({"--nemesis", "bridge"});
  EXPECT_GE(figure(out, "faults injected: "), 1) << out;
  EXPECT_NE(out.find("bridge {"), std::string::npos) << out;
  EXPECT_NE(out.find("healed the network"), std::string::npos) << out;
}

TEST_F(ZklabCheckTest, UnderWipeFindsNoViolation) {
  const std::string out = check_passes({"--nemesis", "wipe"});
  EXPECT_GE(figure(out, "faults injected: "), 1) << out;
  EXPECT_NE(out.find("wiped node"), std::string::npos) << out;
  EXPECT_NE(out.find("started node"), std::string::npos) << out;
  // The wiped node kept the ensemble's session.key: it checked the
  // passwords of the sessions that moved to it.
  for (int id = 1; id <= 3; ++id) {
    const std::string log = read_file(lab_ / ("n" + std::to_string(id)) / "zkd.log");
    EXPECT_EQ(log.find("wrong password"), std::string::npos) << "node " << id;
  }
}

TEST_F(ZklabCheckTest, UnderCorruptFindsNoViolation) {
  const std::string out = check_passes({"--nemesis", "corrupt"});
  EXPECT_GE(figure(out, "faults injected: "), 1) << out;
  EXPECT_NE(out.find("corrupted node"), std::string::npos) << out;
  // Each damaged node either served again or refused to start naming the
  // damage (then it was wiped and rejoined).
  const long started = std::max(figure(out, "corrupt: started: "), 0L);
  const long refused = std::max(figure(out, "corrupt: refused to start: "), 0L);
  EXPECT_EQ(started + refused, figure(out, "corrupt ")) << out;
  if (refused > 0) {
    EXPECT_NE(out.find("refused to start: cannot recover the data: "), std::string::npos) << out;
  }
}

TEST_F(ZklabCheckTest, UnderCrashpointFindsNoViolation) {
  const std::string out = check_passes({"--nemesis", "crashpoint"});
  EXPECT_GE(figure(out, "faults injected: "), 1) << out;
  EXPECT_NE(out.find("runs with failpoint "), std::string::npos) << out;
  const long fired = std::max(figure(out, "crashpoint fired: "), 0L);
  const long missed = std::max(figure(out, "crashpoint not reached: "), 0L);
  EXPECT_EQ(fired + missed, figure(out, "crashpoint ")) << out;
}

TEST_F(ZklabCheckTest, UnderSkewFindsNoViolation) {
  const std::string out = check_passes({"--nemesis", "skew"});
  EXPECT_GE(figure(out, "faults injected: "), 1) << out;
  // Each skewed node's own log showed its clock off by the offset drawn.
  EXPECT_EQ(figure(out, "skew: clock shifted: "), figure(out, "\\(skew ")) << out;
  EXPECT_NE(out.find("runs with its wall clock "), std::string::npos) << out;
}

// The count of "children " lines of a history, and the sequence numbers they
// list, summed.
struct Listings {
  long parents = 0;
  long children = 0;
};
Listings listings(const std::string& history) {
  Listings l;
  std::istringstream lines(history);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("children ", 0) != 0) continue;
    ++l.parents;
    l.children += static_cast<long>(std::count(line.begin(), line.end(), ' ')) - 1;
  }
  return l;
}

// With a jute.maxbuffer far smaller than one listing of every sequential
// znode, the creates are spread over buckets that each list within it, and
// the run is judged.
TEST_F(ZklabCheckTest, CreatesOutgrowingOneReplyAreListedInBuckets) {
  constexpr long kMaxBuffer = 2048;
  const auto history = dir_ / "history.txt";
  const std::string out =
      check_passes({"--jute-maxbuffer", std::to_string(kMaxBuffer), "--history", history.string()});
  const Listings l = listings(read_file(history));
  // One listing of them all (16 bytes a name) would not have fit.
  EXPECT_GT(l.children * 16, kMaxBuffer) << out;
  EXPECT_GE(l.children, figure(out, "ops: create ok=")) << out;
  EXPECT_GE(l.parents, 2) << out;
}

// A jute.maxbuffer too small for even one bucket's listing (the smallest
// bucket holds 64 names, over 1 KiB): the verdict cannot be reached, and the
// report says which step failed and why, with what the clients did.
TEST_F(ZklabCheckTest, AVerdictThatCannotBeReachedNamesTheStepAndKeepsTheCounts) {
  Outcome r = zklab({"check", "--duration", "5", "--seed", "7", "--jute-maxbuffer", "512"}, 90s);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(std::regex_search(
      r.output,
      std::regex("\nverdict: COULD NOT RUN: listing /zklab-check-[0-9-]+/seq/b000000: "
                 "reply of [0-9]+ bytes exceeds the client's jute.maxbuffer \\(512\\)\n")))
      << r.output;
  for (const char* kind : {"read", "write", "cas"}) {
    EXPECT_GT(figure(r.output, std::string("ops: ") + kind + " ok="), 0) << kind << r.output;
  }
  EXPECT_GT(figure(r.output, "ops: create ok="), 64) << r.output;
}

TEST_F(ZklabCheckUsageTest, UnknownNemesisExitsTwo) {
  Outcome r = zklab({"check", "--nemesis", "bogus"}, /*with_dir=*/false);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown nemesis 'bogus'"), std::string::npos) << r.output;
}

}  // namespace
