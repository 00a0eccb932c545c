// SPDX-License-Identifier: Apache-2.0
#include "zkctl/exit_code.h"

#include <gtest/gtest.h>

namespace zkctl {
namespace {

using zk::wire::Error;

TEST(ExitCode, EachScriptableErrorHasItsOwnCode) {
  EXPECT_EQ(exit_code_for(Error::kOk), ExitCode::kOk);
  EXPECT_EQ(exit_code_for(Error::kNoNode), ExitCode::kNoNode);
  EXPECT_EQ(exit_code_for(Error::kNodeExists), ExitCode::kNodeExists);
  EXPECT_EQ(exit_code_for(Error::kBadVersion), ExitCode::kBadVersion);
  EXPECT_EQ(exit_code_for(Error::kNotEmpty), ExitCode::kNotEmpty);
  EXPECT_EQ(exit_code_for(Error::kConnectionLoss), ExitCode::kConnectionFailed);
  EXPECT_EQ(exit_code_for(Error::kOperationTimeout), ExitCode::kConnectionFailed);
  EXPECT_EQ(exit_code_for(Error::kSessionExpired), ExitCode::kSessionExpired);
  EXPECT_EQ(exit_code_for(Error::kNoAuth), ExitCode::kNoAuth);
}

TEST(ExitCode, OtherErrorsAreGeneric) {
  EXPECT_EQ(exit_code_for(Error::kBadArguments), ExitCode::kError);
  EXPECT_EQ(exit_code_for(Error::kNoChildrenForEphemerals), ExitCode::kError);
  EXPECT_EQ(exit_code_for(Error::kSystemError), ExitCode::kError);
}

TEST(ExitCode, NumbersAreStable) {
  // Scripts depend on these numbers; changing one is a breaking change.
  EXPECT_EQ(to_int(ExitCode::kOk), 0);
  EXPECT_EQ(to_int(ExitCode::kError), 1);
  EXPECT_EQ(to_int(ExitCode::kUsage), 2);
  EXPECT_EQ(to_int(ExitCode::kNoNode), 3);
  EXPECT_EQ(to_int(ExitCode::kNodeExists), 4);
  EXPECT_EQ(to_int(ExitCode::kBadVersion), 5);
  EXPECT_EQ(to_int(ExitCode::kNotEmpty), 6);
  EXPECT_EQ(to_int(ExitCode::kConnectionFailed), 7);
  EXPECT_EQ(to_int(ExitCode::kSessionExpired), 8);
  EXPECT_EQ(to_int(ExitCode::kNoAuth), 9);
  EXPECT_EQ(to_int(ExitCode::kWatchTimeout), 10);
}

TEST(ExitCode, HelpTextListsEveryCode) {
  const std::string text = exit_code_help_text();
  for (int code = 0; code <= 10; ++code) {
    EXPECT_NE(text.find("\n  " + std::to_string(code) + " "), std::string::npos) << code;
  }
  EXPECT_NE(text.find("NONODE"), std::string::npos);
  EXPECT_NE(text.find("NOTEMPTY"), std::string::npos);
}

}  // namespace
}  // namespace zkctl
