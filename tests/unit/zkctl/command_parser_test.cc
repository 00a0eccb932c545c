// SPDX-License-Identifier: Apache-2.0
#include "zkctl/command_parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

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

DataArgument literal(std::string s) {
  DataArgument data;
  data.value = std::move(s);
  return data;
}

CreateCommand create(std::string path, std::optional<DataArgument> data, bool ephemeral,
                     bool sequential) {
  CreateCommand c;
  c.path = std::move(path);
  c.data = std::move(data);
  c.ephemeral = ephemeral;
  c.sequential = sequential;
  return c;
}

GetCommand get(std::string path, bool with_stat) {
  GetCommand g;
  g.path = std::move(path);
  g.with_stat = with_stat;
  return g;
}

LsCommand ls(std::string path, bool with_stat) {
  LsCommand l;
  l.path = std::move(path);
  l.with_stat = with_stat;
  return l;
}

TEST(CommandParser, CreatePlainEphemeralAndSequential) {
  EXPECT_EQ(parse_as<CreateCommand>({"create", "/a"}), create("/a", std::nullopt, false, false));
  EXPECT_EQ(parse_as<CreateCommand>({"create", "/a", "x"}),
            create("/a", literal("x"), false, false));
  EXPECT_EQ(parse_as<CreateCommand>({"create", "-e", "-s", "/a", "x"}),
            create("/a", literal("x"), true, true));
  EXPECT_EQ(parse_as<CreateCommand>({"create", "-es", "/a"}),
            create("/a", std::nullopt, true, true));
  EXPECT_EQ(parse_as<CreateCommand>({"create", "/a", "x", "--ephemeral"}),
            create("/a", literal("x"), true, false));
}

// Every command line of zkCli 3.8's help, as an operator types it.
TEST(CommandParser, ZkCliCommandLinesParseAsTyped) {
  const std::vector<std::vector<std::string>> lines = {
      {"ls", "-s", "/"},
      {"ls", "-R", "/"},
      {"ls", "-w", "/a"},
      {"get", "-s", "/a"},
      {"get", "-w", "/a"},
      {"stat", "-w", "/a"},
      {"set", "-s", "/a", "x"},
      {"set", "-v", "1", "/a", "x"},
      {"create", "-c", "/c"},
      {"create", "-t", "1000", "/t", "x"},
      {"create", "/a", "x", "world:anyone:r"},
      {"create", "-s", "-e", "/a/b", "x"},
      {"delete", "-v", "0", "/a"},
      {"deleteall", "/a", "-b", "100"},
      {"getAcl", "-s", "/a"},
      {"setAcl", "-s", "-v", "0", "-R", "/a", "world:anyone:cdrwa"},
      {"addauth", "digest", "u:p"},
      {"sync", "/a"},
      {"addWatch", "-m", "PERSISTENT", "/a"},
      {"addWatch", "/a"},
      {"removewatches", "/a", "-c", "-l"},
      {"whoami"},
      {"getEphemerals"},
      {"getEphemerals", "/a"},
      {"getAllChildrenNumber", "/a"},
      {"setquota", "-n", "10", "/a"},
      {"setquota", "-B", "1000", "/a"},
      {"listquota", "/a"},
      {"delquota", "/a"},
      {"delquota", "-n", "/a"},
      {"config", "-c", "-w", "-s"},
      {"reconfig", "-add", "server.4=127.0.0.1:1:2;3"},
      {"reconfig", "-remove", "3", "-v", "100000000"},
      {"reconfig", "-s", "-members", "server.1=127.0.0.1:1:2;3"},
  };
  for (const auto& words : lines) {
    ParseResult r = parse_command(words);
    const auto* usage = std::get_if<UsageError>(&r);
    EXPECT_EQ(usage, nullptr) << words[0] << ": " << (usage ? usage->message : "");
  }
}

TEST(CommandParser, ZkCliOptionsMeanWhatTheyMeanInZkCli) {
  const auto c = parse_as<CreateCommand>({"create", "-t", "5000", "-s", "/t", "x", "auth::cdrwa"});
  EXPECT_EQ(c.ttl_ms, 5000);
  EXPECT_TRUE(c.sequential);
  ASSERT_TRUE(c.acl.has_value());
  EXPECT_EQ(c.acl->size(), 1U);
  EXPECT_TRUE(parse_as<CreateCommand>({"create", "-c", "/c"}).container);
  EXPECT_TRUE(parse_as<GetCommand>({"get", "-s", "-w", "/a"}).watch);
  EXPECT_TRUE(parse_as<GetCommand>({"get", "-s", "/a"}).with_stat);
  EXPECT_TRUE(parse_as<LsCommand>({"ls", "-R", "/"}).recursive);
  EXPECT_EQ(parse_as<DeleteAllCommand>({"deleteall", "/a", "-b", "50"}).batch, 50);
  EXPECT_EQ(parse_as<AddWatchCommand>({"addWatch", "/a"}).mode,
            zk::wire::AddWatchMode::kPersistentRecursive);
  EXPECT_EQ(parse_as<SetQuotaCommand>({"setquota", "-N", "7", "/q"}),
            (SetQuotaCommand{"/q", QuotaLimit::kCountHardLimit, 7}));
  EXPECT_EQ(parse_as<DelQuotaCommand>({"delquota", "-b", "/q"}).limit, QuotaLimit::kBytes);
  EXPECT_EQ(parse_as<DelQuotaCommand>({"delquota", "/q"}).limit, std::nullopt);
  const auto r = parse_as<ReconfigCommand>({"reconfig", "-remove", "3", "-v", "1a"});
  EXPECT_EQ(r.leaving, "3");
  EXPECT_EQ(r.from_config, 0x1a);                                   // hex, as zkCli reads it
  EXPECT_EQ(parse_as<GetAclCommand>({"getacl", "/a"}).path, "/a");  // any case
  EXPECT_EQ(parse_as<GetCommand>({"get", "--hex", "/a"}).output, DataEncoding::kHex);
  EXPECT_EQ(parse_as<SetCommand>({"set", "--base64", "/a", "eA=="}).data.encoding,
            DataEncoding::kBase64);
}

TEST(CommandParser, ZkCliCombinationsItRefusesAreRefused) {
  EXPECT_FALSE(usage({"create", "-c", "-e", "/c"}).empty());
  EXPECT_FALSE(usage({"create", "-t", "100", "-e", "/t"}).empty());
  EXPECT_FALSE(usage({"create", "-t", "0", "/t"}).empty());
  EXPECT_FALSE(usage({"create", "/a", "x", "world:anyone:q"}).empty());
  EXPECT_FALSE(usage({"setquota", "/q"}).empty());
  EXPECT_FALSE(usage({"setquota", "-n", "0", "/q"}).empty());
  EXPECT_FALSE(usage({"setquota", "-n", "1", "-b", "2", "/q"}).empty());
  EXPECT_FALSE(usage({"addWatch", "-m", "ONCE", "/a"}).empty());
  EXPECT_FALSE(usage({"reconfig"}).empty());
  EXPECT_FALSE(usage({"reconfig", "-remove", "3", "-v", "xyz"}).empty());
  EXPECT_FALSE(usage({"reconfig", "-file", "/nonexistent/dyn.cfg"}).empty());
}

TEST(CommandParser, DataThatLooksLikeACommandOrAnOptionStaysData) {
  EXPECT_EQ(parse_as<CreateCommand>({"create", "/a", "get"}).data, literal("get"));
  EXPECT_EQ(parse_as<CreateCommand>({"create", "/a", ""}).data, literal(""));
  EXPECT_EQ(parse_as<SetCommand>({"set", "/a", "--", "-x"}).data, literal("-x"));
  EXPECT_EQ(parse_as<SetCommand>({"set", "/a", "-5"}).data, literal("-5"));
}

TEST(CommandParser, DataFromFile) {
  EXPECT_EQ(parse_as<SetCommand>({"set", "/a", "@/tmp/f"}).data,
            (DataArgument{DataArgument::Source::kFile, "/tmp/f", DataEncoding::kRaw}));
  EXPECT_EQ(parse_as<SetCommand>({"set", "/a", "@@x"}).data, literal("@x"));
  EXPECT_EQ(parse_as<SetCommand>({"set", "/a", "@"}).data, literal("@"));
}

TEST(CommandParser, GetAndLsWithStat) {
  EXPECT_EQ(parse_as<GetCommand>({"get", "/a"}), get("/a", false));
  EXPECT_EQ(parse_as<GetCommand>({"get", "-S", "/a"}), get("/a", true));
  EXPECT_EQ(parse_as<GetCommand>({"get", "/a", "--stat"}), get("/a", true));
  EXPECT_EQ(parse_as<LsCommand>({"ls", "/"}), ls("/", false));
  EXPECT_EQ(parse_as<LsCommand>({"ls", "-S", "/"}), ls("/", true));
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
  for (const char* name : {"create",   "get",       "set",           "ls",
                           "stat",     "exists",    "delete",        "deleteall",
                           "watch",    "sync",      "addWatch",      "getAcl",
                           "setAcl",   "whoami",    "getEphemerals", "getAllChildrenNumber",
                           "setquota", "listquota", "delquota",      "config",
                           "reconfig"}) {
    EXPECT_NE(help.find(std::string("\n  ") + name + " "), std::string::npos) << name;
  }
}

// The options a usage spells: its words that start with '-', split at the
// brackets and bars of "[-c|-d|-a]".
std::set<std::string> spelled_options(const std::vector<CommandUsage>& usages) {
  std::set<std::string> out;
  for (const CommandUsage& usage : usages) {
    std::string word;
    for (char c : usage.args + " ") {
      if (c == ' ' || c == '\n' || c == '|' || c == '[' || c == ']') {
        if (word.starts_with("-")) out.insert(word);
        word.clear();
      } else {
        word += c;
      }
    }
  }
  return out;
}

// The help text is generated from the usages registered with the grammar;
// they must say what the grammar takes: every option a usage spells is one
// of the command's, and every option of the command is spelled in one of its
// forms (-S and --stat are spellings beside -s). The create and set entries
// lacked [--base64|--hex] when the help was written by hand.
TEST(CommandParser, UsagesSpellTheGrammarsOptions) {
  const std::vector<CommandUsage> usages = command_usages();
  for (const CommandWords& command : command_words()) {
    std::vector<CommandUsage> own;
    for (const CommandUsage& usage : usages) {
      if (usage.name == command.name) own.push_back(usage);
    }
    ASSERT_FALSE(own.empty()) << command.name << " has no usage";
    const std::set<std::string> spelled = spelled_options(own);
    // reconfig's long options are spelled zkCli's way, with one dash.
    auto spells = [&](const std::string& option) {
      return spelled.contains(option) ||
             (option.starts_with("--") && spelled.contains(option.substr(1)));
    };
    for (const std::string& option : spelled) {
      const bool known = std::find(command.options.begin(), command.options.end(), option) !=
                             command.options.end() ||
                         std::find(command.options.begin(), command.options.end(), "-" + option) !=
                             command.options.end();
      EXPECT_TRUE(known) << command.name << ": " << option << " is no option of the grammar";
    }
    // command.options lists each option's short names, then its long one:
    // a new option starts at a short name after a long one, or at a long
    // name after a long one.
    std::vector<std::vector<std::string>> options;
    for (const std::string& name : command.options) {
      if (options.empty() || options.back().back().starts_with("--")) options.emplace_back();
      options.back().push_back(name);
    }
    for (const std::vector<std::string>& names : options) {
      EXPECT_TRUE(std::any_of(names.begin(), names.end(), spells))
          << command.name << ": " << names.front() << " is in no usage";
    }
  }
  for (const CommandUsage& usage : usages) {
    EXPECT_FALSE(usage.summary.empty()) << usage.name;
    const std::vector<CommandWords> words = command_words();
    EXPECT_TRUE(std::any_of(words.begin(), words.end(), [&](const CommandWords& w) {
      return w.name == usage.name;
    })) << usage.name;
  }
}

TEST(CommandParser, HelpHasEachUsageOnce) {
  const std::string help = command_help_text();
  EXPECT_NE(help.find("\n  create [-e] [-s] [-c] [-t TTL] [--base64|--hex] PATH [DATA] [ACL]\n"),
            std::string::npos);
  EXPECT_NE(help.find("\n  ls [-s] [-w] [-R] PATH         list the children, sorted"),
            std::string::npos);
  EXPECT_NE(help.find("\n  reconfig [-s] [-v VERSION] -members SERVERS | -file FILE |\n"
                      "           [-add SERVERS] [-remove IDS]\n"),
            std::string::npos);
  for (const CommandUsage& usage : command_usages()) {
    const std::string entry = "\n  " + usage.name + (usage.args.empty() ? "" : " ");
    EXPECT_NE(help.find(entry), std::string::npos) << usage.name;
  }
  // watch's two forms, each its entry.
  size_t watches = 0;
  for (size_t at = help.find("\n  watch "); at != std::string::npos;
       at = help.find("\n  watch ", at + 1)) {
    ++watches;
  }
  EXPECT_EQ(watches, 2u);
}

}  // namespace
}  // namespace zkctl
