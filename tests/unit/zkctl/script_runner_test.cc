// SPDX-License-Identifier: Apache-2.0
#include "zkctl/script_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

namespace zkctl {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Records every command; `get` of a path listed in `missing` fails with NONODE,
// `exists` answers from the same list, everything else succeeds.
class FakeRunner : public CommandRunner {
 public:
  std::vector<std::string> ran;  // "name path"
  std::vector<std::string> missing;

  std::optional<CommandFailure> run(const Command& command, const ResultSink& sink) override {
    const std::string path = command_path(command);
    ran.push_back(std::string(command_name(command)) + " " + path);
    const bool is_missing = std::find(missing.begin(), missing.end(), path) != missing.end();
    if (std::holds_alternative<ExistsCommand>(command)) {
      sink(ExistsResult{path, !is_missing});
      return std::nullopt;
    }
    if (is_missing) {
      CommandFailure f = failure_from_zk(zk::wire::Error::kNoNode, path);
      f.command = command_name(command);
      return f;
    }
    sink(CreatedResult{path});
    return std::nullopt;
  }
};

class ScriptRunner : public ::testing::Test {
 protected:
  ExitCode run(const std::string& script, bool keep_going = false,
               OutputMode mode = OutputMode::kHuman) {
    std::istringstream in(script);
    Printer printer(mode, out_, err_);
    LineInterpreter interpreter(runner_, printer);
    return run_script(in, interpreter, {"job.zk", keep_going});
  }

  FakeRunner runner_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(ScriptRunner, RunsEveryLineSkippingBlanksAndComments) {
  EXPECT_EQ(run("# setup\ncreate /a\n\n   \nset /a 'x y' # trailing\nget /a\n"), ExitCode::kOk);
  EXPECT_THAT(runner_.ran, ElementsAre("create /a", "set /a", "get /a"));
  EXPECT_EQ(err_.str(), "");
}

TEST_F(ScriptRunner, StopsAtTheFirstFailureWithItsCode) {
  runner_.missing = {"/gone"};
  EXPECT_EQ(run("create /a\nget /gone\ncreate /b\n"), ExitCode::kNoNode);
  EXPECT_THAT(runner_.ran, ElementsAre("create /a", "get /gone"));
  EXPECT_EQ(err_.str(), "job.zk:2: get /gone: node does not exist (NONODE)\n");
}

TEST_F(ScriptRunner, KeepGoingRunsAllAndReturnsTheFirstFailure) {
  runner_.missing = {"/gone"};
  EXPECT_EQ(run("get /gone\nfrobnicate /x\ncreate /b\n", true), ExitCode::kNoNode);
  EXPECT_THAT(runner_.ran, ElementsAre("get /gone", "create /b"));
  EXPECT_THAT(err_.str(), HasSubstr("job.zk:2: unknown command 'frobnicate' (USAGE)"));
}

TEST_F(ScriptRunner, BadLineIsAUsageFailureWithItsLineNumber) {
  EXPECT_EQ(run("create /a\nset /a 'unterminated\ncreate /b\n"), ExitCode::kUsage);
  EXPECT_THAT(runner_.ran, ElementsAre("create /a"));
  EXPECT_EQ(err_.str(), "job.zk:2: unterminated single quote (USAGE)\n");
}

TEST_F(ScriptRunner, ExistsOnAMissingNodeFailsTheScript) {
  runner_.missing = {"/nope"};
  EXPECT_EQ(run("exists /nope\ncreate /b\n"), ExitCode::kNoNode);
  EXPECT_EQ(out_.str(), "false\n");
  EXPECT_THAT(runner_.ran, ElementsAre("exists /nope"));
}

TEST_F(ScriptRunner, QuitEndsTheScript) {
  EXPECT_EQ(run("create /a\nquit\ncreate /b\n"), ExitCode::kOk);
  EXPECT_THAT(runner_.ran, ElementsAre("create /a"));
}

TEST_F(ScriptRunner, JsonModePrintsResultsAndErrorsAsJsonLinesOnStdout) {
  runner_.missing = {"/gone"};
  EXPECT_EQ(run("create /a\nget /gone\n", false, OutputMode::kJson), ExitCode::kNoNode);
  EXPECT_EQ(
      out_.str(),
      "{\"format\":2,\"path\":\"/a\"}\n"
      "{\"format\":2,\"error\":\"NONODE\",\"code\":-101,\"command\":\"get\",\"path\":\"/gone\","
      "\"message\":\"node does not exist\"}\n");
  EXPECT_EQ(err_.str(), "");
}

TEST_F(ScriptRunner, HelpPrintsCommandsAndExitCodes) {
  EXPECT_EQ(run("help\n"), ExitCode::kOk);
  EXPECT_THAT(out_.str(), HasSubstr("deleteall [-b N] PATH"));
  EXPECT_THAT(out_.str(), HasSubstr("Exit codes:"));
  EXPECT_THAT(runner_.ran, ::testing::IsEmpty());
}

}  // namespace
}  // namespace zkctl
