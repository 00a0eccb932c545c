// SPDX-License-Identifier: Apache-2.0
// replica_bootstrap(): what a replica's Zab core starts from. The replica
// host itself runs in the simulator (tests/sim).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "zkd/server/epoch_files.h"
#include "zkd/server/replica_host.h"
#include "zkd/storage/memory_env.h"
#include "zkd/zab/types.h"

namespace zkd::server {
namespace {

const std::string kDir = "data/version-2";

std::vector<storage::LogRecord> records(std::vector<int64_t> zxids) {
  std::vector<storage::LogRecord> out;
  for (int64_t z : zxids) out.push_back(storage::LogRecord{z, "txn" + std::to_string(z)});
  return out;
}

TEST(ReplicaBootstrap, TheEpochFilesAreTheHardState) {
  storage::MemoryEnv env;
  ASSERT_TRUE(write_epoch_files(env, kDir, EpochFiles{4, 3}).ok());
  auto boot = replica_bootstrap(env, kDir, records({zab::make_zxid(3, 1)}), 0, zab::make_zxid(3, 1),
                                1000, 7);
  ASSERT_TRUE(boot.ok()) << boot.status().message();
  EXPECT_EQ(boot->hard_state.accepted_epoch, 4);
  EXPECT_EQ(boot->hard_state.current_epoch, 3);
  EXPECT_EQ(boot->incarnation, 7u);
}

// Apache's QuorumPeer.loadDataBase: a missing currentEpoch is the epoch of the
// last logged zxid, and is written. Found by the simulator: a replica that
// crashed before writing currentEpoch restarted with the derived epoch only
// in memory; the core never writes a hard state it already has, so it
// acknowledged that epoch's NEWLEADER with currentEpoch still 0 on disk.
TEST(ReplicaBootstrap, AMissingCurrentEpochIsTakenFromTheLogAndWritten) {
  storage::MemoryEnv env;
  ASSERT_TRUE(write_epoch_files(env, kDir, EpochFiles{1, 0}).ok());
  const int64_t last = zab::make_zxid(2, 5);
  auto boot = replica_bootstrap(env, kDir, records({zab::make_zxid(2, 4), last}), 0, last, 1000, 1);
  ASSERT_TRUE(boot.ok()) << boot.status().message();
  EXPECT_EQ(boot->hard_state.current_epoch, 2);
  EXPECT_EQ(boot->hard_state.accepted_epoch, 2);
  env.drop_unsynced();
  auto files = read_epoch_files(env, kDir);
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(*files, (EpochFiles{2, 2})) << "durable before the core starts";
}

TEST(ReplicaBootstrap, AFreshReplicaWritesNothing) {
  storage::MemoryEnv env;
  ASSERT_TRUE(env.create_dirs(kDir).ok());
  auto boot = replica_bootstrap(env, kDir, {}, 0, 0, 1000, 1);
  ASSERT_TRUE(boot.ok());
  EXPECT_EQ(boot->hard_state, zab::HardState{});
  EXPECT_TRUE(env.files().empty());
}

TEST(ReplicaBootstrap, TheCoreKeepsCommitWindowEntriesBeforeTheAppliedPoint) {
  storage::MemoryEnv env;
  ASSERT_TRUE(write_epoch_files(env, kDir, EpochFiles{1, 1}).ok());
  std::vector<int64_t> zxids;
  for (int c = 1; c <= 10; ++c) zxids.push_back(zab::make_zxid(1, c));
  auto boot = replica_bootstrap(env, kDir, records(zxids), zab::make_zxid(1, 0),
                                zab::make_zxid(1, 10), 4, 1);
  ASSERT_TRUE(boot.ok());
  ASSERT_EQ(boot->entries.size(), 4u);
  EXPECT_EQ(boot->entries.front().zxid, zab::make_zxid(1, 7));
  EXPECT_EQ(boot->base, zab::make_zxid(1, 6));
  EXPECT_EQ(boot->applied, zab::make_zxid(1, 10));
}

TEST(ReplicaBootstrap, AnUnreadableEpochFileIsAnError) {
  storage::MemoryEnv env;
  ASSERT_TRUE(env.create_dirs(kDir).ok());
  ASSERT_TRUE(env.write_file(kDir + "/currentEpoch", "seven").ok());
  auto boot = replica_bootstrap(env, kDir, {}, 0, 0, 1000, 1);
  ASSERT_FALSE(boot.ok());
  EXPECT_NE(boot.status().message().find("currentEpoch"), std::string::npos)
      << boot.status().message();
}

}  // namespace
}  // namespace zkd::server
