// SPDX-License-Identifier: Apache-2.0
// `zkbench paper`'s pure parts: fig8's failure sequence (paper_schedule.h)
// as the paper describes it, the follower it strikes, the quorum it keeps on
// 5 servers and loses on 3; the tables (paper_table.h) as text and Markdown;
// the number formats; the paper's own figures (paper_reference.h) as the
// paper prints them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "zkbench/paper_reference.h"
#include "zkbench/paper_schedule.h"
#include "zkbench/paper_table.h"

namespace zk::bench {
namespace {

using namespace std::chrono_literals;

TEST(PaperSchedule, IsThePapersSequenceOneStepPerPeriod) {
  const auto s = paper_failure_sequence(10s);
  ASSERT_EQ(s.size(), 11u);
  for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s[i].at, 10s * static_cast<int>(i + 1)) << i;
  EXPECT_EQ(paper_failure_run_length(10s), 120s);
  std::vector<std::string> marked;
  for (const FaultStep& step : s) {
    if (!step.mark.empty()) marked.push_back(step.mark + " " + fault_action_name(step.action));
  }
  const std::vector<std::string> expected = {
      "1 kill follower",  "2 kill follower", "3 kill leader", "4a kill follower",
      "4b kill follower", "4c restart",      "5 kill leader", "6 restart"};
  EXPECT_EQ(marked, expected);
  // Every failure is recovered from before the run ends: the last step restarts.
  EXPECT_EQ(s.back().action, FaultAction::kRestartDown);
  // The leader struck at 3 is back before the followers of 4a and 4b fail.
  EXPECT_EQ(s[5].action, FaultAction::kRestartDown);
  EXPECT_LT(s[5].at, s[6].at);
}

TEST(PaperSchedule, FiveServersKeepTheQuorumThreeDoNot) {
  const auto s = paper_failure_sequence(1s);
  EXPECT_EQ(most_down(s), 2);
  EXPECT_TRUE(keeps_quorum(s, 5));
  EXPECT_TRUE(keeps_quorum(s, 7));
  EXPECT_FALSE(keeps_quorum(s, 3));
  EXPECT_FALSE(keeps_quorum(s, 4));
}

TEST(PaperSchedule, StrikesAFollowerNotStruckBefore) {
  EXPECT_EQ(pick_follower({2, 3, 4, 5}, {}), 2);
  EXPECT_EQ(pick_follower({2, 3, 4, 5}, {2}), 3);  // step 2: "a different follower"
  EXPECT_EQ(pick_follower({2, 3}, {2, 3}), 2);     // every one struck: the lowest again
  EXPECT_EQ(pick_follower({}, {}), std::nullopt);
}

TEST(PaperTable, TextAlignsTheColumns) {
  PaperTable t{"Table 2",
               {"workers", "paper 3", "zkd 3"},
               {{"1", "776", "1,234"}, {"20", "2,740"}},
               {"a note"}};
  EXPECT_EQ(table_text(t),
            "Table 2\n"
            "workers  paper 3  zkd 3\n"
            "1            776  1,234\n"
            "20         2,740\n"
            "a note\n");
}

TEST(PaperTable, MarkdownAlignsNumbersRightAndEscapesPipes) {
  PaperTable t{"T", {"a", "b"}, {{"x|y", "1"}}, {}};
  EXPECT_EQ(table_markdown(t),
            "**T**\n\n"
            "| a | b |\n"
            "| :--- | ---: |\n"
            "| x\\|y | 1 |\n");
}

TEST(PaperTable, Formats) {
  EXPECT_EQ(format_count(1234567.4), "1,234,567");
  EXPECT_EQ(format_count(999.6), "1,000");
  EXPECT_EQ(format_count(0.0), "0");
  EXPECT_EQ(format_count(std::nullopt), "-");
  EXPECT_EQ(format_fixed(9.44, 1), "9.4");
  EXPECT_EQ(format_fixed(std::nullopt, 1), "-");
  EXPECT_EQ(format_ratio(3.0, 2.0), "1.50x");
  EXPECT_EQ(format_ratio(3.0, 0.0), "-");
  EXPECT_EQ(format_ratio(std::nullopt, 2.0), "-");
}

TEST(PaperReference, HasThePapersTables) {
  EXPECT_EQ(paper::kTable1.front().servers, 3);
  EXPECT_EQ(paper::kTable1.front().all_reads, 87000);
  EXPECT_EQ(paper::kTable1.back().no_reads, 8000);
  EXPECT_EQ(paper::kTable2[2].creates_per_s[0], 2740);  // 20 workers, 3 servers
  EXPECT_EQ(paper::kTable3[3].seconds[2], 234.4);       // 1600 barriers, 200 clients
}

}  // namespace
}  // namespace zk::bench
