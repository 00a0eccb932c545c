// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/properties.h"

#include <gtest/gtest.h>

namespace zkd::server {
namespace {

TEST(Properties, ReadsKeyValueLinesSkippingCommentsAndBlanks) {
  auto props = parse_properties(
      "# comment\n"
      "  ! another comment\n"
      "\n"
      "tickTime=2000\n"
      "  dataDir = /var/zk  \n"
      "clientPort: 2181\n"
      "initLimit 5\n");
  ASSERT_EQ(props.size(), 4u);
  EXPECT_EQ(props[0].key, "tickTime");
  EXPECT_EQ(props[0].value, "2000");
  EXPECT_EQ(props[0].line, 4);
  EXPECT_EQ(props[1].key, "dataDir");
  EXPECT_EQ(props[1].value, "/var/zk");
  EXPECT_EQ(props[2].key, "clientPort");
  EXPECT_EQ(props[2].value, "2181");
  EXPECT_EQ(props[3].key, "initLimit");
  EXPECT_EQ(props[3].value, "5");
}

TEST(Properties, ValueKeepsLaterSeparators) {
  auto props = parse_properties("server.1=host:2888:3888;2181\n");
  ASSERT_EQ(props.size(), 1u);
  EXPECT_EQ(props[0].key, "server.1");
  EXPECT_EQ(props[0].value, "host:2888:3888;2181");
}

TEST(Properties, JoinsContinuationLinesAndUndoesEscapes) {
  auto props = parse_properties("list=a,\\\n    b,\\\n  c\nescaped\\:key=tab\\there\r\n");
  ASSERT_EQ(props.size(), 2u);
  EXPECT_EQ(props[0].value, "a,b,c");
  EXPECT_EQ(props[0].line, 1);
  EXPECT_EQ(props[1].key, "escaped:key");
  EXPECT_EQ(props[1].value, "tab\there");
  EXPECT_EQ(props[1].line, 4);
}

TEST(Properties, KeyWithoutValueAndLastLineWithoutNewline) {
  auto props = parse_properties("empty=\nlast=1");
  ASSERT_EQ(props.size(), 2u);
  EXPECT_EQ(props[0].value, "");
  EXPECT_EQ(props[1].key, "last");
  EXPECT_EQ(props[1].value, "1");
}

TEST(CommaList, ItemsAreTrimmedAndEmptyOnesDropped) {
  EXPECT_EQ(comma_list(" TLSv1.3, TLSv1.2 ,,"), (std::vector<std::string>{"TLSv1.3", "TLSv1.2"}));
  EXPECT_EQ(comma_list(""), std::vector<std::string>{});
  EXPECT_EQ(comma_list("srvr"), std::vector<std::string>{"srvr"});
}

}  // namespace
}  // namespace zkd::server
