// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/common/temp_dir.h"

namespace zkd::server {
namespace {

using ::testing::HasSubstr;

TEST(Config, MinimalFileGetsApacheDefaults) {
  auto r = parse_config("dataDir=/tmp/zk\nclientPort=2181\n", "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  const auto& c = *r.config;
  EXPECT_EQ(c.tick_time_ms, 3000);
  EXPECT_EQ(c.data_dir, "/tmp/zk");
  EXPECT_EQ(c.data_log_dir, "/tmp/zk");
  EXPECT_EQ(c.client_port, 2181);
  EXPECT_EQ(c.client_port_address, "");
  EXPECT_EQ(c.max_client_cnxns, 60);
  EXPECT_EQ(c.min_session_timeout_ms, 6000);
  EXPECT_EQ(c.max_session_timeout_ms, 60000);
  EXPECT_EQ(c.four_letter_whitelist, "srvr");
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Config, SessionTimeoutDefaultsFollowTickTime) {
  auto r = parse_config("tickTime=2000\ndataDir=/d\nclientPort=1\n", "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->min_session_timeout_ms, 4000);
  EXPECT_EQ(r.config->max_session_timeout_ms, 40000);
}

TEST(Config, ReadsEveryStandaloneKey) {
  auto r = parse_config(
      "tickTime=200\n"
      "dataDir=/data\n"
      "dataLogDir=/logs\n"
      "clientPort=2182\n"
      "clientPortAddress=127.0.0.1\n"
      "maxClientCnxns=0\n"
      "minSessionTimeout=500\n"
      "maxSessionTimeout=9000\n"
      "4lw.commands.whitelist=ruok, srvr,mntr\n"
      "initLimit=10\n"
      "syncLimit=5\n"
      "server.1=localhost:2888:3888\n"
      "autopurge.snapRetainCount=1\n"
      "autopurge.purgeInterval=24\n"
      "snapCount=1000\n"
      "preAllocSize=1024\n"
      "globalOutstandingLimit=50\n"
      "standaloneEnabled=false\n",
      "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  const auto& c = *r.config;
  EXPECT_EQ(c.tick_time_ms, 200);
  EXPECT_EQ(c.data_log_dir, "/logs");
  EXPECT_EQ(c.client_port, 2182);
  EXPECT_EQ(c.client_port_address, "127.0.0.1");
  EXPECT_EQ(c.max_client_cnxns, 0);
  EXPECT_EQ(c.min_session_timeout_ms, 500);
  EXPECT_EQ(c.max_session_timeout_ms, 9000);
  EXPECT_EQ(c.four_letter_whitelist, "ruok, srvr,mntr");
  EXPECT_EQ(c.init_limit, 10);
  EXPECT_EQ(c.sync_limit, 5);
  ASSERT_EQ(c.servers.count(1), 1u);
  EXPECT_EQ(c.servers.at(1), "localhost:2888:3888");
  EXPECT_EQ(c.autopurge_snap_retain_count, 3);  // Apache raises values below 3
  EXPECT_EQ(c.autopurge_purge_interval_hours, 24);
  EXPECT_EQ(c.snap_count, 1000);
  EXPECT_EQ(c.pre_alloc_size_kb, 1024);
  EXPECT_EQ(c.global_outstanding_limit, 50);
  EXPECT_FALSE(c.standalone_enabled);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Config, StorageDefaultsAreApaches) {
  auto r = parse_config("dataDir=/d\nclientPort=1\n", "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->data_log_dir, "/d");
  EXPECT_EQ(r.config->snap_count, 100000);
  EXPECT_EQ(r.config->pre_alloc_size_kb, 65536);
  EXPECT_EQ(r.config->autopurge_snap_retain_count, 3);
  EXPECT_EQ(r.config->autopurge_purge_interval_hours, 0);
  EXPECT_TRUE(r.config->force_sync);
}

TEST(Config, SnapshotCompressionTakesApachesNames) {
  const auto method = [](const std::string& value) {
    return parse_config("dataDir=/d\nclientPort=1\nsnapshot.compression.method=" + value + "\n",
                        "zoo.cfg");
  };
  EXPECT_EQ(method("gz").config->snapshot_compression, storage::SnapshotCompression::kGzip);
  EXPECT_EQ(method("SNAPPY").config->snapshot_compression, storage::SnapshotCompression::kSnappy);
  EXPECT_EQ(method("checked").config->snapshot_compression, storage::SnapshotCompression::kNone);
  EXPECT_EQ(parse_config("dataDir=/d\nclientPort=1\n", "zoo.cfg").config->snapshot_compression,
            storage::SnapshotCompression::kNone);
  auto bad = method("lz4");
  EXPECT_FALSE(bad.config);
  EXPECT_THAT(bad.error.message(), HasSubstr("zoo.cfg:3: snapshot.compression.method"));
  EXPECT_THAT(bad.error.message(), HasSubstr("must be gz, snappy or checked"));
}

TEST(Config, SnapshotBytesPerSecondIsACapOrZero) {
  const auto cap = [](const std::string& value) {
    return parse_config("dataDir=/d\nclientPort=1\nzkd.snapshotBytesPerSecond=" + value + "\n",
                        "zoo.cfg");
  };
  EXPECT_EQ(parse_config("dataDir=/d\nclientPort=1\n", "zoo.cfg").config->snapshot_bytes_per_second,
            64 << 20);
  EXPECT_EQ(cap("33554432").config->snapshot_bytes_per_second, 33554432);
  EXPECT_EQ(cap("0").config->snapshot_bytes_per_second, 0);
  auto negative = cap("-1");
  EXPECT_FALSE(negative.config);
  EXPECT_THAT(negative.error.message(),
              HasSubstr("zoo.cfg:3: zkd.snapshotBytesPerSecond: must be 0 or a number of bytes"));
  EXPECT_FALSE(cap("fast").config);
}

TEST(Config, ForceSyncIsOffOnlyForNo) {
  auto off = parse_config("dataDir=/d\nclientPort=1\nforceSync=no\n", "zoo.cfg");
  ASSERT_TRUE(off.config) << off.error.message();
  EXPECT_FALSE(off.config->force_sync);
  auto on = parse_config("dataDir=/d\nclientPort=1\nforceSync=yes\n", "zoo.cfg");
  ASSERT_TRUE(on.config) << on.error.message();
  EXPECT_TRUE(on.config->force_sync);
  EXPECT_TRUE(on.warnings.empty());
}

TEST(Config, EnforceQuotaIsReadAsJavaBoolean) {
  auto def = parse_config("dataDir=/d\nclientPort=1\n", "zoo.cfg");
  ASSERT_TRUE(def.config) << def.error.message();
  EXPECT_FALSE(def.config->enforce_quota);
  auto on = parse_config("dataDir=/d\nclientPort=1\nenforceQuota=TRUE\n", "zoo.cfg");
  ASSERT_TRUE(on.config) << on.error.message();
  EXPECT_TRUE(on.config->enforce_quota);
  EXPECT_TRUE(on.warnings.empty());
  auto off = parse_config("dataDir=/d\nclientPort=1\nenforceQuota=yes\n", "zoo.cfg");
  ASSERT_TRUE(off.config) << off.error.message();
  EXPECT_FALSE(off.config->enforce_quota);
}

TEST(Config, PreAllocSizeMustBePositive) {
  auto r = parse_config("dataDir=/d\nclientPort=1\npreAllocSize=0\n", "zoo.cfg");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr("preAllocSize"));
}

TEST(Config, UnknownKeyIsAWarningNotAnError) {
  auto r = parse_config("dataDir=/d\nclientPort=1\nfrobnicate=yes\n", "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_THAT(r.warnings[0], HasSubstr("frobnicate"));
  EXPECT_THAT(r.warnings[0], HasSubstr("zoo.cfg:3"));
}

TEST(Config, NonNumericTickTimeNamesKeyAndLine) {
  auto r = parse_config("dataDir=/d\ntickTime=fast\nclientPort=1\n", "conf/zoo.cfg");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr("conf/zoo.cfg:2"));
  EXPECT_THAT(r.error.message(), HasSubstr("tickTime"));
  EXPECT_THAT(r.error.message(), HasSubstr("fast"));
}

TEST(Config, TrailingGarbageInNumberIsAnError) {
  auto r = parse_config("dataDir=/d\nclientPort=2181x\n", "zoo.cfg");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr("clientPort"));
}

TEST(Config, MissingDataDirIsAnError) {
  auto r = parse_config("clientPort=2181\n", "zoo.cfg");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr("dataDir"));
}

TEST(Config, MissingClientPortIsAnError) {
  auto r = parse_config("dataDir=/d\n", "zoo.cfg");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr("clientPort"));
}

TEST(Config, ClientPortAddressWithoutPortIsAnError) {
  auto r = parse_config("dataDir=/d\nclientPortAddress=127.0.0.1\n", "zoo.cfg");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr("zoo.cfg:2"));
  EXPECT_THAT(r.error.message(), HasSubstr("clientPort"));
}

TEST(Config, MinAboveMaxSessionTimeoutIsAnError) {
  auto r = parse_config(
      "dataDir=/d\nclientPort=1\nminSessionTimeout=50000\nmaxSessionTimeout=4000\n", "zoo.cfg");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr("zoo.cfg:3"));
  EXPECT_THAT(r.error.message(), HasSubstr("minSessionTimeout"));
}

TEST(Config, MinAboveDefaultMaxIsAnError) {
  auto r =
      parse_config("dataDir=/d\nclientPort=1\ntickTime=100\nminSessionTimeout=5000\n", "zoo.cfg");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr("minSessionTimeout"));
}

TEST(Config, LaterDuplicateWins) {
  auto r = parse_config("dataDir=/d\nclientPort=1\nclientPort=2\n", "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->client_port, 2);
}

TEST(Config, LoadReportsUnreadableFile) {
  auto r = load_config("/nonexistent/dir/zoo.cfg");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr("/nonexistent/dir/zoo.cfg"));
}

TEST(Config, LoadAndPrepareCreatesDataDir) {
  zk::test::TempDir temp("zkd_config_test");
  const std::filesystem::path& base = temp.path();

  auto data = base / "nested" / "data";
  {
    std::ofstream out(base / "zoo.cfg");
    out << "dataDir=" << data.string() << "\nclientPort=2181\n";
  }
  auto r = load_config(base / "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->source, base / "zoo.cfg");
  EXPECT_TRUE(prepare_directories(*r.config).ok());
  EXPECT_TRUE(std::filesystem::is_directory(data));
}

}  // namespace
}  // namespace zkd::server
