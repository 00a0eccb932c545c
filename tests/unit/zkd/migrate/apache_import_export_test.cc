// SPDX-License-Identifier: Apache-2.0
// zkd import and zkd export on real directories: Apache's files as the
// format's rules make them (Apache's own are read in
// tests/conformance/test_migration.py).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/common/temp_dir.h"
#include "tests/unit/zkd/apache_files/apache_test_util.h"
#include "zkd/migrate/adopt_apache.h"
#include "zkd/migrate/apache_export.h"
#include "zkd/migrate/apache_import.h"
#include "zkd/server/recovery.h"
#include "zkd/storage/env.h"
#include "zkd/tree/database.h"
#include "zkd/tree/snapshot.h"

namespace zkd::migrate {
namespace {

namespace test = apache::test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ApacheImportExportTest : public ::testing::Test {
 protected:
  ApacheImportExportTest() : apache_("apache-data"), zkd_("zkd-data"), out_("apache-out") {
    auto parsed = server::parse_config(
        "dataDir=" + zkd_.path().string() + "\nclientPort=2181\nextendedTypesEnabled=true\n",
        "zoo.cfg");
    EXPECT_TRUE(parsed.config) << parsed.error.message();
    config_ = *parsed.config;
    std::filesystem::create_directories(version2());
  }

  std::filesystem::path version2() const { return apache_.path() / "version-2"; }

  // Apache's dataDir: snapshot.a of the varied tree (its last txn is 0xa),
  // then log.9 holding 9..12, of which 11 and 12 come after the snapshot.
  void write_apache_data() {
    apache_.write("version-2/snapshot.a",
                  test::apache_snapshot_bytes(test::varied_tree(), test::varied_sessions()));
    apache_.write("version-2/log.9", test::log_header() +
                                         test::log_entry(test::create_txn(9, "/old1", "", 4)) +
                                         test::log_entry(test::create_txn(10, "/old2", "", 5)) +
                                         test::log_entry(test::create_txn(11, "/x", "1", 5)) +
                                         test::log_entry(test::create_txn(12, "/y", "2", 6)) +
                                         std::string(1024, '\0'));
    apache_.write("version-2/currentEpoch", "3");
    apache_.write("version-2/acceptedEpoch", "4");
  }

  // The varied tree with the two txns after the snapshot applied.
  static tree::DataTree expected_tree() {
    tree::DataTree t = test::varied_tree();
    EXPECT_EQ(
        t.create("/x", std::string("1"), zk::wire::open_acl_unsafe(), 0, 5, 11, 1'700'000'100'000),
        zk::wire::Error::kOk);
    EXPECT_EQ(
        t.create("/y", std::string("2"), zk::wire::open_acl_unsafe(), 0, 6, 12, 1'700'000'100'000),
        zk::wire::Error::kOk);
    return t;
  }

  // What zkd recovers from its dataDir, as a tree.
  tree::LoadedSnapshot recovered() {
    tree::Database db(tree::DatabaseOptions{.extended_types = true});
    auto status = server::recover(env_, server::storage_layout(config_), db);
    EXPECT_TRUE(status.ok()) << status.status().message();
    std::string payload;
    auto cursor = db.begin_snapshot();
    for (std::string chunk; !(chunk = cursor->next_chunk(100)).empty();) payload += chunk;
    auto loaded = tree::read_snapshot(payload, true);
    EXPECT_TRUE(loaded.ok()) << loaded.status().message();
    return *std::move(loaded);
  }

  zkd::StatusOr<ImportSummary> import() {
    return import_apache(env_, {apache_.path().string(), "", nullptr}, config_);
  }

  storage::Env& env_ = storage::posix_env();
  zk::test::TempDir apache_;
  zk::test::TempDir zkd_;
  zk::test::TempDir out_;
  server::ServerConfig config_;
};

TEST_F(ApacheImportExportTest, ImportsTheSnapshotAndTheTxnsLoggedAfterIt) {
  write_apache_data();
  auto summary = import();
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->snapshot, "snapshot.a");
  EXPECT_THAT(summary->logs, ElementsAre("log.9"));
  EXPECT_EQ(summary->txns, 2u);  // 9 and 10 are in the snapshot already
  EXPECT_EQ(summary->zxid, 12);
  EXPECT_EQ(summary->sessions, 2u);
  EXPECT_EQ(summary->epochs, (server::EpochFiles{4, 3}));

  const tree::LoadedSnapshot state = recovered();
  EXPECT_EQ(test::describe(state.tree), test::describe(expected_tree()));
  EXPECT_EQ(state.sessions.timeout(test::kSession), 10'000);
  auto epochs = server::read_epoch_files(env_, server::storage_layout(config_).snap_dir);
  ASSERT_TRUE(epochs.ok());
  EXPECT_EQ(*epochs, (server::EpochFiles{4, 3}));
}

TEST_F(ApacheImportExportTest, ImportRefusesADataDirThatHoldsData) {
  write_apache_data();
  ASSERT_TRUE(import().ok());
  auto again = import();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().kind(), zkd::Status::Kind::kConfig);
  EXPECT_THAT(again.status().message(), HasSubstr("already holds 1 snapshot or log file"));
}

TEST_F(ApacheImportExportTest, ADamagedNewestSnapshotFallsBackToAnOlderOne) {
  write_apache_data();
  apache_.write("version-2/snapshot.b", "ZKSN but not really");
  auto summary = import();
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->snapshot, "snapshot.a");
  ASSERT_EQ(summary->skipped_snapshots.size(), 1u);
  EXPECT_THAT(summary->skipped_snapshots[0], HasSubstr("snapshot.b: "));
}

TEST_F(ApacheImportExportTest, AHoleInTheLogIsAnErrorAndWritesNothing) {
  write_apache_data();
  apache_.write("version-2/log.b", test::log_header() +
                                       test::log_entry(test::create_txn(11, "/x", "1", 5)) +
                                       test::log_entry(test::create_txn(13, "/y", "2", 6)));
  std::filesystem::remove(version2() / "log.9");
  auto summary = import();
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(summary.status().message(), HasSubstr("log.b: the txn log has a hole: after zxid"));
  EXPECT_FALSE(std::filesystem::exists(zkd_.path() / "version-2" / "snapshot.000000000000000b"));
}

TEST_F(ApacheImportExportTest, NoSnapshotIsAnErrorThatSaysWhatWasLookedAt) {
  auto summary = import();
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(summary.status().message(), HasSubstr("holds no snapshot.<zxid> file"));
}

TEST_F(ApacheImportExportTest, ExportWritesWhatImportReads) {
  write_apache_data();
  ASSERT_TRUE(import().ok());
  auto exported = export_apache(env_, config_, out_.path().string(), nullptr);
  ASSERT_TRUE(exported.ok()) << exported.status().message();
  EXPECT_EQ(exported->written, (out_.path() / "version-2" / "snapshot.c").string());
  EXPECT_EQ(exported->zxid, 12);
  EXPECT_EQ(exported->epochs, (server::EpochFiles{4, 3}));

  auto bytes = env_.read_file(exported->written);
  ASSERT_TRUE(bytes.ok());
  auto loaded = apache::read_apache_snapshot(*bytes, exported->written, true, nullptr);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(test::describe(loaded->tree), test::describe(expected_tree()));
  EXPECT_EQ(loaded->sessions.ids(), test::varied_sessions().ids());

  auto again = export_apache(env_, config_, out_.path().string(), nullptr);
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(), HasSubstr("already holds"));
}

TEST_F(ApacheImportExportTest, ExportOfAnEmptyDataDirIsRefused) {
  auto exported = export_apache(env_, config_, out_.path().string(), nullptr);
  ASSERT_FALSE(exported.ok());
  EXPECT_THAT(exported.status().message(), HasSubstr("holds no zkd snapshot"));
}

// zkd started on an Apache server's own dataDir: the files move to
// version-2.apache and their state is imported.
TEST_F(ApacheImportExportTest, ZkdOnApachesOwnDataDirTakesItsDataOver) {
  write_apache_data();
  const auto zkd_v2 = zkd_.path() / "version-2";
  std::filesystem::remove_all(zkd_v2);
  std::filesystem::copy(version2(), zkd_v2);
  auto adopted = adopt_apache_data(env_, config_, nullptr);
  ASSERT_TRUE(adopted.ok()) << adopted.status().message();
  ASSERT_TRUE(adopted->has_value());
  EXPECT_EQ((*adopted)->zxid, 12);
  EXPECT_TRUE(std::filesystem::exists(zkd_.path() / "version-2.apache" / "log.9"));
  EXPECT_FALSE(std::filesystem::exists(zkd_v2 / "log.9"));
  EXPECT_EQ(test::describe(recovered().tree), test::describe(expected_tree()));
  // zkd's files now: the next start adopts nothing.
  auto again = adopt_apache_data(env_, config_, nullptr);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_FALSE(again->has_value());
}

// A log segment a crash cut off before its header (empty) is zkd's
// recovery's to judge, not a sign of Apache's files.
TEST_F(ApacheImportExportTest, AnEmptyFileAmongZkdsIsNotTakenForApaches) {
  write_apache_data();
  ASSERT_TRUE(import().ok());
  zkd_.write("version-2/log.0000000000001852", "");
  auto adopted = adopt_apache_data(env_, config_, nullptr);
  ASSERT_TRUE(adopted.ok()) << adopted.status().message();
  EXPECT_FALSE(adopted->has_value());
}

TEST_F(ApacheImportExportTest, ADataDirHoldingBothKindsIsNotTakenOver) {
  write_apache_data();
  ASSERT_TRUE(import().ok());
  std::filesystem::copy_file(version2() / "log.9", zkd_.path() / "version-2" / "log.9");
  auto adopted = adopt_apache_data(env_, config_, nullptr);
  ASSERT_FALSE(adopted.ok());
  EXPECT_THAT(adopted.status().message(), HasSubstr("both Apache ZooKeeper's files"));
  EXPECT_FALSE(std::filesystem::exists(zkd_.path() / "version-2.apache"));
}

}  // namespace
}  // namespace zkd::migrate
