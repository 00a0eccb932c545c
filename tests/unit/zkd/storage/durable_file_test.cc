// SPDX-License-Identifier: Apache-2.0
#include "zkd/storage/durable_file.h"

#include <gtest/gtest.h>

#include "tests/unit/zkd/storage/storage_test_util.h"
#include "zkd/storage/memory_env.h"

namespace zkd::storage {
namespace {

TEST(DurableFile, ContentSurvivesAPowerLossAndReplacesTheOldOne) {
  MemoryEnv env;
  ASSERT_TRUE(env.create_dirs("/d").ok());
  ASSERT_TRUE(write_file_durably(env, "/d", "f", "first").ok());
  env.drop_unsynced();
  EXPECT_EQ(*env.read_file("/d/f"), "first");

  ASSERT_TRUE(env.write_file("/d/f.tmp", "left over by a crash, longer than the rest").ok());
  ASSERT_TRUE(write_file_durably(env, "/d", "f", "second").ok());
  env.drop_unsynced();
  EXPECT_EQ(*env.read_file("/d/f"), "second");
  EXPECT_EQ(env.files(), std::vector<std::string>{"/d/f"});  // the temporary was renamed
}

TEST(DurableFile, MissingDirectoryIsAnErrorNamingIt) {
  MemoryEnv env;
  Status s = write_file_durably(env, "/missing", "f", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/missing/f"), std::string::npos) << s.message();
}

TEST(DurableFile, WorksOnRealFiles) {
  testing::TempDir tmp;
  ASSERT_TRUE(write_file_durably(posix_env(), tmp.path(), "f", "one").ok());
  ASSERT_TRUE(write_file_durably(posix_env(), tmp.path(), "f", "two").ok());
  EXPECT_EQ(*posix_env().read_file(tmp.at("f")), "two");
  EXPECT_FALSE(posix_env().file_exists(tmp.at("f.tmp")));
}

}  // namespace
}  // namespace zkd::storage
