// SPDX-License-Identifier: Apache-2.0
// `zkbench paper` as a user runs it, on zkd only and tiny sizes (each case a
// few seconds): every figure prints its table beside the paper's figures and
// writes its plots; bad arguments exit 2. No timing is asserted.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/common/temp_dir.h"
#include "tests/zkbench/zkbench_test_util.h"

namespace {

using zk::bench::testing::Outcome;
using zk::bench::testing::zkbench;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `zkbench paper FIGURE --flavours zkd --zkd <the build's> --out <dir>
// --ensemble-warmup 0 ARGS...`.
Outcome paper(const std::string& figure, const std::filesystem::path& out,
              std::vector<std::string> args) {
  std::vector<std::string> all = {
      "paper", figure,       "--flavours",        "zkd", "--zkd", ZKD_BINARY,
      "--out", out.string(), "--ensemble-warmup", "0"};
  all.insert(all.end(), args.begin(), args.end());
  return zkbench(all);
}

TEST(ZkbenchPaper, Fig5PrintsItsTableTableOneAndAPlot) {
  zk::test::TempDir dir("zkbench_paper");
  const Outcome o = paper("fig5", dir.path(),
                          {"--sizes", "3", "--steps", "0,100", "--duration", "0.3", "--warmup", "0",
                           "--sessions", "3", "--in-flight", "2"});
  ASSERT_EQ(o.exit_code, 0) << o.output;
  for (const char* part : {"Figure 5: operations per second against reads", "zkd 3",
                           "Table 1: operations per second at the extremes", "87,000", "21,000",
                           "Server CPU per request"}) {
    EXPECT_TRUE(contains(o.output, part)) << part << "\n" << o.output;
  }
  EXPECT_FALSE(contains(o.output, "apache")) << o.output;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "fig5.svg"));
}

TEST(ZkbenchPaper, Table2AndTable3PrintBesideThePapers) {
  zk::test::TempDir dir("zkbench_paper");
  Outcome o = paper("table2", dir.path(),
                    {"--sizes", "3", "--workers", "1,2", "--creates", "20", "--markdown"});
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "**Table 2: create requests per second**")) << o.output;
  EXPECT_TRUE(contains(o.output, "| 1 | 776 |")) << o.output;  // the paper's 1 worker, 3 servers
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "table2.svg"));

  o = paper("table3", dir.path(), {"--size", "3", "--clients", "2,3", "--barriers", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "Table 3: the barrier experiment")) << o.output;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "table3.svg"));
}

TEST(ZkbenchPaper, Fig7RunsTheBroadcastAloneOnTheLeader) {
  zk::test::TempDir dir("zkbench_paper");
  const Outcome o = paper("fig7", dir.path(),
                          {"--sizes", "3", "--txns", "200", "--runs", "2", "--in-flight", "20"});
  ASSERT_EQ(o.exit_code, 0) << o.output;
  for (const char* part : {"Figure 7: the atomic broadcast alone", "median of 2 runs of 200",
                           "zkd txns/s", "Apache ZooKeeper is not run"}) {
    EXPECT_TRUE(contains(o.output, part)) << part << "\n" << o.output;
  }
  EXPECT_FALSE(contains(o.output, "the broadcast command failed")) << o.output;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "fig7.svg"));
}

TEST(ZkbenchPaper, Fig8MarksThePapersFailureSequence) {
  zk::test::TempDir dir("zkbench_paper");
  const Outcome o = paper("fig8", dir.path(),
                          {"--size", "5", "--period", "1", "--sessions", "5", "--in-flight", "1",
                           "--bucket-ms", "250"});
  ASSERT_EQ(o.exit_code, 0) << o.output;
  for (const char* part : {"all up", "1: kill follower", "4c: restart", "6: restart"}) {
    EXPECT_TRUE(contains(o.output, part)) << part << "\n" << o.output;
  }
  ASSERT_TRUE(std::filesystem::exists(dir.path() / "fig8-zkd.svg"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "fig8-zkd.csv"));
}

TEST(ZkbenchPaper, BadArgumentsExitTwo) {
  EXPECT_EQ(zkbench({"paper", "fig9"}).exit_code, 2);
  EXPECT_EQ(zkbench({"paper", "fig5", "--flavours", "etcd"}).exit_code, 2);
  EXPECT_EQ(zkbench({"paper"}).exit_code, 2);
}

}  // namespace
