// SPDX-License-Identifier: Apache-2.0
#include "zkctl/data_argument.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace zkctl {
namespace {

TEST(DataArgument, LiteralIsReturnedAsIs) {
  auto r = resolve_data({DataArgument::Source::kLiteral, "hello"});
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_EQ(std::get<std::string>(r), "hello");
}

TEST(DataArgument, FileIsReadWholeAndBinarySafe) {
  char name[] = "/tmp/zkctl_data_XXXXXX";
  const int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  close(fd);
  const std::string content("bin\0\xFF\nend", 9);
  {
    std::ofstream out(name, std::ios::binary);
    out << content;
  }
  auto r = resolve_data({DataArgument::Source::kFile, name});
  std::remove(name);
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_EQ(std::get<std::string>(r), content);
}

TEST(DataArgument, MissingFileIsAFailureNamingTheFile) {
  auto r = resolve_data({DataArgument::Source::kFile, "/nonexistent/zkctl/data"});
  ASSERT_TRUE(std::holds_alternative<CommandFailure>(r));
  const auto& f = std::get<CommandFailure>(r);
  EXPECT_EQ(f.exit_code, ExitCode::kError);
  EXPECT_EQ(f.name, "DATA_FILE");
  EXPECT_NE(f.message.find("/nonexistent/zkctl/data"), std::string::npos);
}

}  // namespace
}  // namespace zkctl
