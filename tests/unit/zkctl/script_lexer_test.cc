// SPDX-License-Identifier: Apache-2.0
#include "zkctl/script_lexer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace zkctl {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> words(std::string_view line) {
  LexResult r = split_command_line(line);
  if (const auto* e = std::get_if<LexError>(&r)) {
    ADD_FAILURE() << "unexpected error: " << e->message;
    return {};
  }
  return std::get<std::vector<std::string>>(r);
}

std::string error(std::string_view line) {
  LexResult r = split_command_line(line);
  if (const auto* e = std::get_if<LexError>(&r)) return e->message;
  ADD_FAILURE() << "expected an error for: " << line;
  return {};
}

TEST(ScriptLexer, SplitsOnBlanks) {
  EXPECT_THAT(words("  set   /a\tvalue  "), ElementsAre("set", "/a", "value"));
}

TEST(ScriptLexer, BlankAndCommentLinesHaveNoWords) {
  EXPECT_THAT(words(""), IsEmpty());
  EXPECT_THAT(words("   \t "), IsEmpty());
  EXPECT_THAT(words("# a comment"), IsEmpty());
  EXPECT_THAT(words("   # indented comment"), IsEmpty());
}

TEST(ScriptLexer, TrailingCommentIsDroppedButHashInsideAWordIsKept) {
  EXPECT_THAT(words("get /a # why"), ElementsAre("get", "/a"));
  EXPECT_THAT(words("set /a x#y"), ElementsAre("set", "/a", "x#y"));
  EXPECT_THAT(words("set /a '#literal'"), ElementsAre("set", "/a", "#literal"));
}

TEST(ScriptLexer, SingleQuotesAreLiteral) {
  EXPECT_THAT(words(R"(set /a 'hello "world" \n')"),
              ElementsAre("set", "/a", R"(hello "world" \n)"));
}

TEST(ScriptLexer, DoubleQuotesKnowFewEscapes) {
  EXPECT_THAT(words(R"(set /a "say \"hi\"\nback\\slash \x")"),
              ElementsAre("set", "/a", "say \"hi\"\nback\\slash \\x"));
}

TEST(ScriptLexer, QuotesJoinAdjacentTextAndEmptyQuotesMakeAnEmptyWord) {
  EXPECT_THAT(words(R"(a"b c"d '' "")"), ElementsAre("ab cd", "", ""));
}

TEST(ScriptLexer, BackslashEscapesOutsideQuotes) {
  EXPECT_THAT(words(R"(set /a two\ words)"), ElementsAre("set", "/a", "two words"));
}

TEST(ScriptLexer, UnterminatedQuotesAreErrors) {
  EXPECT_EQ(error("set /a 'oops"), "unterminated single quote");
  EXPECT_EQ(error("set /a \"oops"), "unterminated double quote");
  EXPECT_EQ(error("set /a oops\\"), "backslash at end of line");
}

}  // namespace
}  // namespace zkctl
