// SPDX-License-Identifier: Apache-2.0
#include "zkctl/command_parser.h"

#include <gtest/gtest.h>

namespace zkctl {
namespace {

template <typename T>
T parse_as(std::vector<std::string> words) {
  ParseResult r = parse_command(words);
  if (const auto* u = std::get_if<UsageError>(&r)) {
    ADD_FAILURE() << "usage error: " << u->message;
    return T{};
  }
  const Command& c = std::get<Command>(r);
  if (!std::holds_alternative<T>(c)) {
    ADD_FAILURE() << "parsed as " << command_name(c);
    return T{};
  }
  return std::get<T>(c);
}

std::string usage(std::vector<std::string> words) {
  ParseResult r = parse_command(words);
  if (const auto* u = std::get_if<UsageError>(&r)) return u->message;
  ADD_FAILURE() << "expected a usage error";
  return {};
}

DataArgument literal(std::string s) { return {DataArgument::Source::kLiteral, std::move(s)}; }

TEST(CommandParser, CreatePlainEphemeralAndSequential) {
  EXPECT_EQ(parse_as<CreateCommand>({"create", "/a"}),
            (CreateCommand{"/a", std::nullopt, false, false}));
  EXPECT_EQ(parse_as<CreateCommand>({"create", "/a", "x"}),
            (CreateCommand{"/a", literal("x"), false, false}));
  EXPECT_EQ(parse_as<CreateCommand>({"create", "-e", "-s", "/a", "x"}),
            (CreateCommand{"/a", literal("x"), true, true}));
  EXPECT_EQ(parse_as<CreateCommand>({"create", "-es", "/a"}),
            (CreateCommand{"/a", std::nullopt, true, true}));
  EXPECT_EQ(parse_as<CreateCommand>({"create", "/a", "x", "--ephemeral"}),
            (CreateCommand{"/a", literal("x"), true, false}));
}

TEST(CommandParser, DataThatLooksLikeACommandOrAnOptionStaysData) {
  EXPECT_EQ(parse_as<CreateCommand>({"create", "/a", "get"}).data, literal("get"));
  EXPECT_EQ(parse_as<CreateCommand>({"create", "/a", ""}).data, literal(""));
  EXPECT_EQ(parse_as<SetCommand>({"set", "/a", "--", "-x"}).data, literal("-x"));
  EXPECT_EQ(parse_as<SetCommand>({"set", "/a", "-5"}).data, literal("-5"));
}

TEST(CommandParser, DataFromFile) {
  EXPECT_EQ(parse_as<SetCommand>({"set", "/a", "@/tmp/f"}).data,
            (DataArgument{DataArgument::Source::kFile, "/tmp/f"}));
  EXPECT_EQ(parse_as<SetCommand>({"set", "/a", "@@x"}).data, literal("@x"));
  EXPECT_EQ(parse_as<SetCommand>({"set", "/a", "@"}).data, literal("@"));
}

TEST(CommandParser, GetAndLsWithStat) {
  EXPECT_EQ(parse_as<GetCommand>({"get", "/a"}), (GetCommand{"/a", false}));
  EXPECT_EQ(parse_as<GetCommand>({"get", "-S", "/a"}), (GetCommand{"/a", true}));
  EXPECT_EQ(parse_as<GetCommand>({"get", "/a", "--stat"}), (GetCommand{"/a", true}));
  EXPECT_EQ(parse_as<LsCommand>({"ls", "/"}), (LsCommand{"/", false}));
  EXPECT_EQ(parse_as<LsCommand>({"ls", "-S", "/"}), (LsCommand{"/", true}));
}

TEST(CommandParser, VersionedSetAndDelete) {
  EXPECT_EQ(parse_as<SetCommand>({"set", "/a", "x"}), (SetCommand{"/a", literal("x"), -1, false}));
  EXPECT_EQ(parse_as<SetCommand>({"set", "/a", "x", "-v", "3"}),
            (SetCommand{"/a", literal("x"), 3, false}));
  EXPECT_EQ(parse_as<SetCommand>({"set", "-v", "0", "/a", "x"}),
            (SetCommand{"/a", literal("x"), 0, false}));
  EXPECT_EQ(parse_as<DeleteCommand>({"delete", "/a"}), (DeleteCommand{"/a", -1}));
  EXPECT_EQ(parse_as<DeleteCommand>({"delete", "/a", "--version", "7"}), (DeleteCommand{"/a", 7}));
}

TEST(CommandParser, PathOnlyCommands) {
  EXPECT_EQ(parse_as<StatCommand>({"stat", "/a"}).path, "/a");
  EXPECT_EQ(parse_as<ExistsCommand>({"exists", "/a"}).path, "/a");
  EXPECT_EQ(parse_as<DeleteAllCommand>({"deleteall", "/a"}).path, "/a");
  EXPECT_EQ(parse_as<SyncCommand>({"sync", "/"}).path, "/");
}

TEST(CommandParser, WatchDefaultsToOneDataEventWithoutTimeout) {
  const auto w = parse_as<WatchCommand>({"watch", "/a"});
  EXPECT_EQ(w.path, "/a");
  EXPECT_EQ(w.kind, WatchKind::kData);
  EXPECT_EQ(w.count, 1);
  EXPECT_FALSE(w.timeout_ms.has_value());
}

TEST(CommandParser, WatchKindsCountAndTimeout) {
  EXPECT_EQ(parse_as<WatchCommand>({"watch", "--children", "/a"}).kind, WatchKind::kChildren);
  EXPECT_EQ(parse_as<WatchCommand>({"watch", "/a", "--exists"}).kind, WatchKind::kExists);
  const auto w = parse_as<WatchCommand>({"watch", "/a", "--count", "3", "--timeout-watch", "500"});
  EXPECT_EQ(w.count, 3);
  EXPECT_EQ(w.timeout_ms, 500);
}

TEST(CommandParser, UsageErrorsNameTheProblem) {
  EXPECT_EQ(usage({}), "no command given");
  EXPECT_EQ(usage({"frobnicate", "/a"}), "unknown command 'frobnicate'");
  EXPECT_NE(usage({"get"}).find("PATH"), std::string::npos);
  EXPECT_NE(usage({"set", "/a"}).find("DATA"), std::string::npos);
  EXPECT_NE(usage({"get", "/a", "/b"}).find("get:"), std::string::npos);
  EXPECT_NE(usage({"get", "--bogus", "/a"}).find("--bogus"), std::string::npos);
  EXPECT_NE(usage({"set", "/a", "x", "-v", "abc"}).find("abc"), std::string::npos);
  EXPECT_FALSE(usage({"watch", "--data", "--children", "/a"}).empty());
  EXPECT_FALSE(usage({"watch", "--count", "0", "/a"}).empty());
}

TEST(CommandParser, HelpListsEveryCommand) {
  const std::string help = command_help_text();
  for (const char* name :
       {"create", "get", "set", "ls", "stat", "exists", "delete", "deleteall", "watch", "sync"}) {
    EXPECT_NE(help.find(std::string("\n  ") + name + " "), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace zkctl
