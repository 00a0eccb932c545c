// SPDX-License-Identifier: Apache-2.0
#include "zkctl/line_completion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "zkctl/line_interpreter.h"

namespace zkctl {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;

// A tree of znodes, as a map from a path to its children's names; every
// listing is recorded. A path not in the map fails (NONODE).
struct FakeTree {
  std::map<std::string, std::vector<std::string>> children{
      {"/", {"a", "hello", "help", "helpdesk", "zookeeper"}},
      {"/a", {"b"}},
      {"/a/b", {"pan", "pal", "other"}},
  };
  std::vector<std::string> listed;

  ChildLister lister() {
    return [this](const std::string& path) -> std::optional<std::vector<std::string>> {
      listed.push_back(path);
      auto found = children.find(path);
      if (found == children.end()) return std::nullopt;
      return found->second;
    };
  }
};

class LineCompletionTest : public ::testing::Test {
 protected:
  LineCompletion complete(std::string_view line) { return complete_at(line, line.size()); }
  LineCompletion complete_at(std::string_view line, size_t cursor) {
    return complete_line(line, cursor, commands_, tree_.lister());
  }

  std::vector<CommandWords> commands_ = shell_command_words();
  FakeTree tree_;
};

TEST_F(LineCompletionTest, FirstWordCompletesCommandNames) {
  const LineCompletion c = complete("cr");
  EXPECT_EQ(c.kind, CompletionKind::kCommand);
  EXPECT_EQ(c.word_start, 0u);
  EXPECT_THAT(c.candidates, ElementsAre("create"));
  EXPECT_THAT(complete("  de").candidates, ElementsAre("delete", "deleteall", "delquota"));
  EXPECT_THAT(complete("e").candidates, ElementsAre("exists", "exit"));
  EXPECT_THAT(complete("getA").candidates, ElementsAre("getAcl", "getAllChildrenNumber"));
  EXPECT_THAT(complete("q").candidates, ElementsAre("quit"));
  EXPECT_THAT(tree_.listed, IsEmpty());
}

TEST_F(LineCompletionTest, EmptyLineOffersEveryCommand) {
  const LineCompletion c = complete("");
  EXPECT_THAT(c.candidates, Contains("ls"));
  EXPECT_THAT(c.candidates, Contains("setAcl"));
  EXPECT_THAT(c.candidates, Contains("connect"));
  EXPECT_THAT(c.candidates, Contains("help"));
  EXPECT_EQ(c.candidates.size(), commands_.size());
}

TEST_F(LineCompletionTest, OptionsOfTheCommand) {
  LineCompletion c = complete("get --");
  EXPECT_EQ(c.kind, CompletionKind::kOption);
  EXPECT_EQ(c.word_start, 4u);
  EXPECT_THAT(c.candidates, ElementsAre("--base64", "--hex", "--stat", "--watch"));
  EXPECT_THAT(complete("get -").candidates,
              ElementsAre("--base64", "--hex", "--stat", "--watch", "-S", "-s", "-w"));
  EXPECT_THAT(complete("watch --c").candidates, ElementsAre("--children", "--count"));
  EXPECT_THAT(complete("watch --per").candidates, ElementsAre("--persistent"));
  EXPECT_THAT(complete("set /a --v").candidates, ElementsAre("--version"));
}

TEST_F(LineCompletionTest, NoOptionsAfterTheSeparatorOrForUnknownCommands) {
  EXPECT_THAT(complete("set /a -- -").candidates, IsEmpty());
  EXPECT_THAT(complete("frobnicate --").candidates, IsEmpty());
  EXPECT_THAT(complete("sync --").candidates, IsEmpty());
}

TEST_F(LineCompletionTest, PathUnderTheRoot) {
  const LineCompletion c = complete("ls /hel");
  EXPECT_EQ(c.kind, CompletionKind::kPath);
  EXPECT_EQ(c.word_start, 3u);
  EXPECT_THAT(c.candidates, ElementsAre("/hello", "/help", "/helpdesk"));
  EXPECT_THAT(tree_.listed, ElementsAre("/"));
}

TEST_F(LineCompletionTest, RootAloneListsEveryChild) {
  EXPECT_THAT(complete("get /").candidates,
              ElementsAre("/a", "/hello", "/help", "/helpdesk", "/zookeeper"));
}

TEST_F(LineCompletionTest, NestedPathListsItsParent) {
  EXPECT_THAT(complete("get -S /a/b/pa").candidates, ElementsAre("/a/b/pal", "/a/b/pan"));
  EXPECT_THAT(complete("ls /a/b/").candidates, ElementsAre("/a/b/other", "/a/b/pal", "/a/b/pan"));
  EXPECT_THAT(complete("ls /a/b/o").candidates, ElementsAre("/a/b/other"));
  EXPECT_THAT(tree_.listed, ElementsAre("/a/b", "/a/b", "/a/b"));
}

TEST_F(LineCompletionTest, UniqueMatchIsTheWholePath) {
  const LineCompletion c = complete("delete /hell");
  EXPECT_THAT(c.candidates, ElementsAre("/hello"));
  EXPECT_EQ(c.kind, CompletionKind::kPath);  // the shell appends nothing to a path
}

TEST_F(LineCompletionTest, NoMatchGivesNothing) {
  EXPECT_THAT(complete("ls /x").candidates, IsEmpty());
  EXPECT_THAT(complete("ls /a/b/q").candidates, IsEmpty());
}

TEST_F(LineCompletionTest, ListingFailureGivesNothing) {
  EXPECT_THAT(complete("ls /missing/ch").candidates, IsEmpty());
  EXPECT_THAT(tree_.listed, ElementsAre("/missing"));
  const ChildLister throwing = [](const std::string&) -> std::optional<std::vector<std::string>> {
    throw std::runtime_error("connection lost");
  };
  EXPECT_THAT(complete_line("ls /he", 6, commands_, throwing).candidates, IsEmpty());
}

TEST_F(LineCompletionTest, MalformedParentIsNotListed) {
  EXPECT_THAT(complete("ls //he").candidates, IsEmpty());
  EXPECT_THAT(complete("ls /a//b").candidates, IsEmpty());
  EXPECT_THAT(tree_.listed, IsEmpty());
}

TEST_F(LineCompletionTest, PathsOnlyWhereTheCommandTakesOne) {
  EXPECT_THAT(complete("addauth /").candidates, IsEmpty());
  EXPECT_THAT(complete("help /").candidates, IsEmpty());
  EXPECT_THAT(complete("ls hel").candidates, IsEmpty());
  EXPECT_THAT(tree_.listed, IsEmpty());
}

TEST_F(LineCompletionTest, CursorInsideTheLineCompletesTheWordBeforeIt) {
  const LineCompletion c = complete_at("ls /hel -S", 7);
  EXPECT_THAT(c.candidates, ElementsAre("/hello", "/help", "/helpdesk"));
  EXPECT_EQ(c.word_start, 3u);
  EXPECT_THAT(complete_at("ls", 99).candidates, ElementsAre("ls"));
}

TEST_F(LineCompletionTest, AnyLineAndCursorIsSafe) {
  for (std::string_view line : {"", " ", "\t\t", "--", "ls -- /", "/", "ls /a/b/pan/", "get \t/"}) {
    for (size_t cursor = 0; cursor <= line.size() + 1; ++cursor) {
      const LineCompletion c = complete_at(line, cursor);
      EXPECT_LE(c.word_start, line.size()) << line << " @" << cursor;
    }
  }
}

TEST(CommandWordsTest, ReadFromTheGrammar) {
  const std::vector<CommandWords> words = command_words();
  ASSERT_FALSE(words.empty());
  EXPECT_EQ(words.front().name, "create");
  EXPECT_THAT(words.front().options,
              ElementsAre("-e", "--ephemeral", "-s", "--sequential", "-c", "--container", "-t",
                          "--ttl", "--base64", "--hex"));
  EXPECT_TRUE(words.front().takes_path);
  for (const CommandWords& w : words) {
    EXPECT_THAT(w.options, Not(Contains("--help"))) << w.name;
    if (w.name == "addauth") {
      EXPECT_FALSE(w.takes_path);
    }
  }
}

}  // namespace
}  // namespace zkctl
