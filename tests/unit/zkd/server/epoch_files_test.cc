// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/epoch_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/common/temp_dir.h"

#include "zkd/storage/memory_env.h"

namespace zkd::server {
namespace {

using ::testing::HasSubstr;

const std::string kDir = "/data/version-2";

TEST(EpochFiles, MissingFilesReadAsZero) {
  storage::MemoryEnv env;
  ASSERT_TRUE(env.create_dirs(kDir).ok());
  auto epochs = read_epoch_files(env, kDir);
  ASSERT_TRUE(epochs.ok()) << epochs.status().message();
  EXPECT_EQ(*epochs, EpochFiles{});
  auto missing_dir = read_epoch_files(env, "/nowhere");
  ASSERT_TRUE(missing_dir.ok());
  EXPECT_EQ(*missing_dir, EpochFiles{});
}

TEST(EpochFiles, RoundTripIsDurableAndApacheShaped) {
  storage::MemoryEnv env;
  ASSERT_TRUE(env.create_dirs(kDir).ok());
  ASSERT_TRUE(write_epoch_files(env, kDir, EpochFiles{5, 4}).ok());
  env.drop_unsynced();  // written, synced, renamed, directory synced
  EXPECT_EQ(*env.read_file(kDir + "/acceptedEpoch"), "5");
  EXPECT_EQ(*env.read_file(kDir + "/currentEpoch"), "4");
  EXPECT_EQ(env.files(),
            (std::vector<std::string>{kDir + "/acceptedEpoch", kDir + "/currentEpoch"}));
  auto epochs = read_epoch_files(env, kDir);
  ASSERT_TRUE(epochs.ok()) << epochs.status().message();
  EXPECT_EQ(*epochs, (EpochFiles{5, 4}));

  ASSERT_TRUE(write_epoch_files(env, kDir, EpochFiles{6, 6}).ok());
  env.drop_unsynced();
  EXPECT_EQ(*read_epoch_files(env, kDir), (EpochFiles{6, 6}));
}

TEST(EpochFiles, OnlyChangedFilesAreWritten) {
  storage::MemoryEnv env;
  ASSERT_TRUE(write_epoch_files(env, kDir, EpochFiles{3, 2}).ok());  // creates the directory
  const uint64_t syncs = env.file_syncs();
  ASSERT_TRUE(write_epoch_files(env, kDir, EpochFiles{4, 2}).ok());
  EXPECT_EQ(env.file_syncs(), syncs + 1);  // acceptedEpoch only
  ASSERT_TRUE(write_epoch_files(env, kDir, EpochFiles{4, 2}).ok());
  EXPECT_EQ(env.file_syncs(), syncs + 1);  // nothing changed
  EXPECT_EQ(*read_epoch_files(env, kDir), (EpochFiles{4, 2}));
}

TEST(EpochFiles, ApacheTextWithWhitespaceIsRead) {
  storage::MemoryEnv env;
  ASSERT_TRUE(env.create_dirs(kDir).ok());
  ASSERT_TRUE(env.write_file(kDir + "/acceptedEpoch", "12\n").ok());
  ASSERT_TRUE(env.write_file(kDir + "/currentEpoch", " 11 ").ok());
  EXPECT_EQ(*read_epoch_files(env, kDir), (EpochFiles{12, 11}));
}

TEST(EpochFiles, GarbageIsAnErrorNamingTheFile) {
  for (std::string content : {"", "x1", "1 2", "-3", "99999999999999999999"}) {
    storage::MemoryEnv env;
    ASSERT_TRUE(env.create_dirs(kDir).ok());
    ASSERT_TRUE(env.write_file(kDir + "/acceptedEpoch", "1").ok());
    ASSERT_TRUE(env.write_file(kDir + "/currentEpoch", content).ok());
    auto epochs = read_epoch_files(env, kDir);
    ASSERT_FALSE(epochs.ok()) << "'" << content << "'";
    EXPECT_THAT(epochs.status().message(), HasSubstr(kDir + "/currentEpoch: expected an epoch"));
    EXPECT_THAT(epochs.status().message(), HasSubstr("'" + content + "'"));
  }
}

TEST(EpochFiles, WorksOnRealFiles) {
  zk::test::TempDir temp("zkd_epochs");
  const std::string dir = temp.at("version-2");
  ASSERT_TRUE(write_epoch_files(storage::posix_env(), dir, EpochFiles{7, 7}).ok());
  auto epochs = read_epoch_files(storage::posix_env(), dir);
  ASSERT_TRUE(epochs.ok()) << epochs.status().message();
  EXPECT_EQ(*epochs, (EpochFiles{7, 7}));
}

}  // namespace
}  // namespace zkd::server
