// SPDX-License-Identifier: Apache-2.0
#include "zkctl/global_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace zkctl {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

GlobalOptions parse_ok(std::vector<std::string> args, const char* env = nullptr) {
  auto r = parse_global_options(args, env);
  if (const auto* e = std::get_if<EarlyExit>(&r)) {
    ADD_FAILURE() << "early exit " << to_int(e->code) << ": " << e->err;
    return {};
  }
  return std::get<GlobalOptions>(r);
}

EarlyExit parse_exit(std::vector<std::string> args) {
  auto r = parse_global_options(args, nullptr);
  if (const auto* e = std::get_if<EarlyExit>(&r)) return *e;
  ADD_FAILURE() << "expected an early exit";
  return {};
}

TEST(GlobalOptions, DefaultsWithoutArguments) {
  const GlobalOptions o = parse_ok({});
  EXPECT_EQ(o.server, "127.0.0.1:2181");
  EXPECT_EQ(o.session_timeout_ms, 30000);
  EXPECT_EQ(o.connect_timeout_ms, 5000);
  EXPECT_FALSE(o.json);
  EXPECT_FALSE(o.keep_going);
  EXPECT_THAT(o.command, IsEmpty());
}

TEST(GlobalOptions, ServerComesFromFlagThenEnvironmentThenDefault) {
  EXPECT_EQ(parse_ok({}, "10.0.0.1:2181").server, "10.0.0.1:2181");
  EXPECT_EQ(parse_ok({"-s", "127.0.0.1:3000/app"}, "10.0.0.1:2181").server, "127.0.0.1:3000/app");
  EXPECT_EQ(parse_ok({"--server", "a:1,b:2"}).server, "a:1,b:2");
  EXPECT_EQ(parse_ok({}, "").server, "127.0.0.1:2181");
}

TEST(GlobalOptions, EverythingFromTheCommandOnIsTheCommand) {
  // Options after the command belong to it, even ones that look global.
  const GlobalOptions o = parse_ok({"--json", "-s", "h:1", "create", "-s", "-e", "/a", "--json"});
  EXPECT_TRUE(o.json);
  EXPECT_EQ(o.server, "h:1");
  EXPECT_THAT(o.command, ElementsAre("create", "-s", "-e", "/a", "--json"));
}

TEST(GlobalOptions, TimeoutsAndScriptOptions) {
  const GlobalOptions o =
      parse_ok({"--timeout", "4000", "--connect-timeout", "250", "-f", "x.zk", "--keep-going"});
  EXPECT_EQ(o.session_timeout_ms, 4000);
  EXPECT_EQ(o.connect_timeout_ms, 250);
  EXPECT_EQ(o.script_file, "x.zk");
  EXPECT_TRUE(o.keep_going);
}

TEST(GlobalOptions, BadOptionsAreUsageErrorsOnStderr) {
  const EarlyExit unknown = parse_exit({"--bogus"});
  EXPECT_EQ(unknown.code, ExitCode::kUsage);
  EXPECT_THAT(unknown.err, HasSubstr("--bogus"));
  EXPECT_THAT(unknown.err, HasSubstr("zkctl --help"));
  EXPECT_EQ(parse_exit({"--timeout", "soon"}).code, ExitCode::kUsage);
  EXPECT_EQ(parse_exit({"--connect-timeout", "0"}).code, ExitCode::kUsage);
  EXPECT_EQ(parse_exit({"-s"}).code, ExitCode::kUsage);
}

TEST(GlobalOptions, ScriptFileAndCommandTogetherIsAUsageError) {
  const EarlyExit e = parse_exit({"-f", "x.zk", "get", "/a"});
  EXPECT_EQ(e.code, ExitCode::kUsage);
  EXPECT_THAT(e.err, HasSubstr("-f FILE or a command"));
}

TEST(GlobalOptions, HelpShowsOptionsCommandsAndExitCodes) {
  const EarlyExit e = parse_exit({"--help"});
  EXPECT_EQ(e.code, ExitCode::kOk);
  EXPECT_THAT(e.out, HasSubstr("--connect-timeout"));
  EXPECT_THAT(e.out, HasSubstr("deleteall [-b N] PATH"));
  EXPECT_THAT(e.out, HasSubstr("getAllChildrenNumber PATH"));
  EXPECT_THAT(e.out, HasSubstr("Exit codes:"));
  EXPECT_THAT(e.out, HasSubstr("10  watch"));
  EXPECT_THAT(e.out, HasSubstr("data_base64"));
  EXPECT_EQ(e.out, full_help_text());
}

TEST(RunMode, DependsOnCommandFileAndTerminal) {
  GlobalOptions o;
  EXPECT_EQ(run_mode(o, true), RunMode::kInteractive);
  EXPECT_EQ(run_mode(o, false), RunMode::kScriptStdin);
  o.command = {"-"};
  EXPECT_EQ(run_mode(o, true), RunMode::kScriptStdin);
  o.command = {"ls", "/"};
  EXPECT_EQ(run_mode(o, false), RunMode::kOneShot);
  o.command.clear();
  o.script_file = "x.zk";
  EXPECT_EQ(run_mode(o, true), RunMode::kScriptFile);
}

}  // namespace
}  // namespace zkctl
