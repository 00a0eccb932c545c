// SPDX-License-Identifier: Apache-2.0
// zkd restore on real directories: which zxid the state gets (the rules in
// zkd/migrate/snapshot_restore.h), the epoch files, compressed files, and
// what it refuses. The command itself, and a whole ensemble restored, are
// tested in tests/lab/restore_test.cc.
#include "zkd/migrate/snapshot_restore.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/common/temp_dir.h"
#include "tests/unit/zkd/apache_files/apache_test_util.h"
#include "zkd/server/recovery.h"
#include "zkd/storage/env.h"
#include "zkd/tree/database.h"

namespace zkd::migrate {
namespace {

namespace test = apache::test;
using ::testing::HasSubstr;

// The varied tree's newest zxid: its last txn deletes /a/b/c/d (pzxid of /a/b/c).
constexpr int64_t kTreeZxid = 0xa;

class SnapshotRestoreTest : public ::testing::Test {
 protected:
  SnapshotRestoreTest() : files_("restore-files"), zkd_("restore-data") {
    use_data_dir(zkd_.path());
  }

  // zoo.cfg naming `data_dir`, and `log_dir` as dataLogDir when given.
  void use_data_dir(const std::filesystem::path& data_dir, const std::string& log_dir = "") {
    auto parsed = server::parse_config("dataDir=" + data_dir.string() +
                                           (log_dir.empty() ? "" : "\ndataLogDir=" + log_dir) +
                                           "\nclientPort=2181\nextendedTypesEnabled=true\n",
                                       "zoo.cfg");
    ASSERT_TRUE(parsed.config) << parsed.error.message();
    config_ = *parsed.config;
  }

  static std::string snapshot() {
    return test::apache_snapshot_bytes(test::varied_tree(), test::varied_sessions());
  }

  StatusOr<RestoreSummary> restore(const std::string& name, const std::string& bytes,
                                   std::optional<int64_t> zxid = std::nullopt) {
    return restore_snapshot(env_, {files_.write(name, bytes), zxid, nullptr}, config_);
  }

  // What zkd recovers from the restored dataDir, and its last zxid.
  int64_t recovered_zxid(std::vector<std::string>* described = nullptr) {
    tree::Database db(tree::DatabaseOptions{.extended_types = true});
    auto status = server::recover(env_, server::storage_layout(config_), db);
    EXPECT_TRUE(status.ok()) << status.status().message();
    if (described) *described = test::describe(db.tree());
    EXPECT_EQ(db.session_table().size(), 2u);
    return db.last_zxid();
  }

  server::EpochFiles epochs() {
    auto read = server::read_epoch_files(env_, server::storage_layout(config_).snap_dir);
    EXPECT_TRUE(read.ok()) << read.status().message();
    return read.ok() ? *read : server::EpochFiles{};
  }

  storage::Env& env_ = storage::posix_env();
  zk::test::TempDir files_;
  zk::test::TempDir zkd_;
  server::ServerConfig config_;
};

TEST_F(SnapshotRestoreTest, TheFileNameGivesTheZxidAndItsEpochTheEpochFiles) {
  auto summary = restore("snapshot.30000000c", snapshot());
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->zxid, 0x30000000c);
  EXPECT_EQ(summary->zxid_from, "the file name");
  EXPECT_EQ(summary->sessions, 2u);
  EXPECT_EQ(summary->epochs, (server::EpochFiles{3, 3}));
  EXPECT_EQ(summary->written, (zkd_.path() / "version-2" / "snapshot.000000030000000c").string());

  std::vector<std::string> tree;
  EXPECT_EQ(recovered_zxid(&tree), 0x30000000c);
  EXPECT_EQ(tree, test::describe(test::varied_tree()));
  EXPECT_EQ(epochs(), (server::EpochFiles{3, 3}));
}

TEST_F(SnapshotRestoreTest, The39LastZxidSectionComesBeforeTheName) {
  auto summary = restore("snapshot.c", test::with_last_zxid(snapshot(), 0x20000000e));
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->zxid, 0x20000000e);
  EXPECT_EQ(summary->zxid_from, "the file's last-zxid section");
  EXPECT_EQ(recovered_zxid(), 0x20000000e);
}

TEST_F(SnapshotRestoreTest, AnyOtherNameTakesTheNewestZxidInTheTree) {
  auto summary = restore("streamed-from-apache.bin", snapshot());
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->zxid, kTreeZxid);
  EXPECT_EQ(summary->zxid_from, "the newest zxid in the tree");
  EXPECT_EQ(recovered_zxid(), kTreeZxid);
}

// A fuzzy snapshot: Apache named it when its walk began, and a node written
// meanwhile is newer.
TEST_F(SnapshotRestoreTest, ANameOlderThanTheTreeRisesToTheTree) {
  auto summary = restore("snapshot.5", snapshot());
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->zxid, kTreeZxid);
  EXPECT_THAT(summary->zxid_from, HasSubstr("the file name 0x5, raised to the newest zxid"));
}

TEST_F(SnapshotRestoreTest, AStatedZxidComesFirstButNeverBelowTheTree) {
  auto stated = restore("snapshot.c", test::with_last_zxid(snapshot(), 0xd), 0x10000000f);
  ASSERT_TRUE(stated.ok()) << stated.status().message();
  EXPECT_EQ(stated->zxid, 0x10000000f);
  EXPECT_EQ(stated->zxid_from, "stated by --zxid");

  zk::test::TempDir other("restore-other");
  use_data_dir(other.path());
  auto below = restore("snapshot.c", snapshot(), 0x9);
  ASSERT_FALSE(below.ok());
  EXPECT_EQ(below.status().kind(), Status::Kind::kConfig);
  EXPECT_THAT(below.status().message(), HasSubstr("--zxid 0x9 is below zxid 0xa"));
  EXPECT_FALSE(std::filesystem::exists(other.path() / "version-2"));
}

// zkd export writes the epoch files beside the snapshot: they come along,
// raised where the zxid's epoch is newer.
TEST_F(SnapshotRestoreTest, EpochFilesBesideTheSnapshotComeAlong) {
  files_.write("acceptedEpoch", "7");
  files_.write("currentEpoch", "1");
  auto summary = restore("snapshot.50000000c", snapshot());
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->epochs, (server::EpochFiles{7, 5}));
  EXPECT_EQ(epochs(), (server::EpochFiles{7, 5}));
}

TEST_F(SnapshotRestoreTest, AGzipSnapshotUnderAnyNameReads) {
  auto summary = restore("snap.download", test::gzip(snapshot()));
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  std::vector<std::string> tree;
  EXPECT_EQ(recovered_zxid(&tree), kTreeZxid);
  EXPECT_EQ(tree, test::describe(test::varied_tree()));
}

TEST_F(SnapshotRestoreTest, MyidSessionKeyAndAnEmptyVersion2AreAllowed) {
  zkd_.write("myid", "2\n");
  zkd_.write("session.key", std::string(16, 'k'));
  std::filesystem::create_directories(zkd_.path() / "version-2");
  auto summary = restore("snapshot.c", snapshot());
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  auto myid = env_.read_file((zkd_.path() / "myid").string());
  ASSERT_TRUE(myid.ok());
  EXPECT_EQ(*myid, "2\n");
}

TEST_F(SnapshotRestoreTest, ADataDirHoldingAnythingElseIsRefused) {
  std::filesystem::create_directories(zkd_.path() / "version-2");
  zkd_.write("version-2/acceptedEpoch", "4");
  auto summary = restore("snapshot.c", snapshot());
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().kind(), Status::Kind::kConfig);
  EXPECT_THAT(summary.status().message(),
              HasSubstr("zoo.cfg's dataDir is not empty: it holds " +
                        (zkd_.path() / "version-2" / "acceptedEpoch").string()));
  EXPECT_FALSE(std::filesystem::exists(zkd_.path() / "version-2" / "snapshot.000000000000000c"));
}

TEST_F(SnapshotRestoreTest, ASeparateDataLogDirMustBeEmptyToo) {
  zk::test::TempDir logs("restore-logs");
  use_data_dir(zkd_.path(), logs.path().string());
  logs.write("log.1", "old");
  auto summary = restore("snapshot.c", snapshot());
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(summary.status().message(),
              HasSubstr("dataDir or dataLogDir is not empty: it holds " +
                        (logs.path() / "log.1").string()));
}

TEST_F(SnapshotRestoreTest, ADamagedSnapshotNamesTheOffsetAndWritesNothing) {
  std::string bytes = snapshot();
  bytes.resize(bytes.size() / 2);
  auto summary = restore("snapshot.c", bytes);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().kind(), Status::Kind::kCorruption);
  EXPECT_THAT(summary.status().message(), HasSubstr("snapshot.c: offset "));
  EXPECT_FALSE(std::filesystem::exists(zkd_.path() / "version-2"));

  auto gz = restore("snapshot.d.gz", test::gzip(snapshot()).substr(0, 40));
  ASSERT_FALSE(gz.ok());
  EXPECT_EQ(gz.status().kind(), Status::Kind::kCorruption);
  EXPECT_THAT(gz.status().message(), HasSubstr("snapshot.d.gz: compressed stream damaged at"));
}

// The survivor's own version-2/snapshot.<zxid> is zkd's format: the error
// says to export it.
TEST_F(SnapshotRestoreTest, AZkdSnapshotIsRefusedWithTheWayToExportIt) {
  auto summary = restore("snapshot.0000000100000193", std::string("zkdsnap1") + snapshot());
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().kind(), Status::Kind::kCorruption);
  EXPECT_THAT(summary.status().message(),
              HasSubstr("snapshot.0000000100000193: offset 0: one of zkd's own files"));
  EXPECT_THAT(summary.status().message(), HasSubstr("zkd export writes the file to restore"));
  EXPECT_FALSE(std::filesystem::exists(zkd_.path() / "version-2"));
}

}  // namespace
}  // namespace zkd::migrate
