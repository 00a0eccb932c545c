// SPDX-License-Identifier: Apache-2.0
// help_entry: the two columns of zkctl's help (zkctl/help_layout.h).
#include "zkctl/help_layout.h"

#include <gtest/gtest.h>

#include <sstream>

namespace zkctl {
namespace {

TEST(HelpLayout, ShortSyntaxSharesItsLineWithTheSummary) {
  EXPECT_EQ(help_entry("stat [-w] PATH", "print the Stat"),
            "  stat [-w] PATH                 print the Stat\n");
  // 31 columns leave the space before column 33.
  EXPECT_EQ(help_entry("setquota -n|-b|-N|-B N PATH", "x"), "  setquota -n|-b|-N|-B N PATH    x\n");
}

TEST(HelpLayout, LongSyntaxPutsTheSummaryBelow) {
  EXPECT_EQ(help_entry("set [-s] [-v VERSION] PATH DATA", "replace the data"),
            "  set [-s] [-v VERSION] PATH DATA\n"
            "                                 replace the data\n");
}

TEST(HelpLayout, SyntaxOnSeveralLines) {
  EXPECT_EQ(help_entry("reconfig -members SERVERS |\n         [-add SERVERS]", "change it"),
            "  reconfig -members SERVERS |\n"
            "           [-add SERVERS]        change it\n");
}

TEST(HelpLayout, SummaryWrapsAt77ColumnsKeepingAnOptionWithItsWord) {
  const std::string entry = help_entry(
      "create PATH",
      "create a node, print the created path (-e ephemeral, -s sequential, -c container, "
      "-t TTL node of TTL ms; no DATA: null data; a one-shot ephemeral vanishes when zkctl exits)");
  EXPECT_EQ(entry,
            "  create PATH                    create a node, print the created path\n"
            "                                 (-e ephemeral, -s sequential, -c container,\n"
            "                                 -t TTL node of TTL ms; no DATA: null data; a\n"
            "                                 one-shot ephemeral vanishes when zkctl\n"
            "                                 exits)\n");
  std::istringstream lines(entry);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), kHelpWidth) << line;
}

TEST(HelpLayout, AWordLongerThanTheColumnStandsAlone) {
  const std::string word(60, 'x');
  EXPECT_EQ(help_entry("a", "b " + word + " c"), "  a                              b\n" +
                                                     std::string(33, ' ') + word + "\n" +
                                                     std::string(33, ' ') + "c\n");
}

TEST(HelpLayout, NoSummary) { EXPECT_EQ(help_entry("whoami", ""), "  whoami\n"); }

}  // namespace
}  // namespace zkctl
