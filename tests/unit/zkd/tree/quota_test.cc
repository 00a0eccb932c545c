// SPDX-License-Identifier: Apache-2.0
// Quotas (Apache 3.8's DataTree / ZooKeeperServer.checkQuota): the stats
// node bookkeeping under /zookeeper/quota, its rebuild after a snapshot load
// and log replay, and enforcement of hard limits at prepare time.
#include <string>
#include <vector>

#include "libzk/wire/multi.h"
#include "tests/unit/zkd/tree/tree_fixture.h"

namespace zkd::tree::testing {
namespace {

using zk::wire::MultiOp;
using zk::wire::MultiResult;

std::string snapshot_of(const Database& db) {
  auto cursor = db.begin_snapshot();
  std::string payload;
  for (std::string chunk; !(chunk = cursor->next_chunk(3)).empty();) payload += chunk;
  return payload;
}

// What zkCli's setquota writes: limits text for -n / -N / -b / -B (-1: unset).
std::string limits(int64_t count, int64_t bytes, int64_t count_hard, int64_t byte_hard) {
  return "count=" + std::to_string(count) + ",bytes=" + std::to_string(bytes) +
         "=;byteHardLimit=" + std::to_string(byte_hard) +
         ";countHardLimit=" + std::to_string(count_hard);
}

class QuotaTest : public TreeTest {
 protected:
  // zkCli's setquota on a fresh quota path: the path's nodes under
  // /zookeeper/quota, the limits node, then the stats node ("count=0,bytes=0",
  // which the server recounts).
  void set_quota(const std::string& path, const std::string& limits_text) {
    std::string quota_path = "/zookeeper/quota";
    for (size_t start = 1; start <= path.size();) {
      size_t end = path.find('/', start);
      if (end == std::string::npos) end = path.size();
      quota_path += "/" + path.substr(start, end - start);
      if (!exists(quota_path)) logged(create(quota_path, std::nullopt));
      start = end + 1;
    }
    ASSERT_EQ(logged(create(quota_path + "/zookeeper_limits", limits_text)).response.err,
              Error::kOk);
    ASSERT_EQ(logged(create(quota_path + "/zookeeper_stats", std::string("count=0,bytes=0")))
                  .response.err,
              Error::kOk);
  }
  std::string stats(const std::string& path) {
    zk::wire::Buffer d = data("/zookeeper/quota" + path + "/zookeeper_stats");
    return d.value_or("<null>");
  }
  // Keeps the txn of the write just done, for replays.
  ApplyResult logged(ApplyResult r) {
    log.push_back(last_txn);
    return r;
  }
  ApplyResult c(const std::string& path, const std::string& value = std::string()) {
    return logged(create(path, value));
  }
  ApplyResult put(const std::string& path, const std::string& value) {
    return logged(set_data(path, value));
  }
  ApplyResult del(const std::string& path) { return logged(remove(path)); }

  // A database that enforces quotas, its warnings kept in `warnings`.
  void enforce() {
    DatabaseOptions options;
    options.enforce_quota = true;
    options.quota_warning = [this](const std::string& line) { warnings.push_back(line); };
    db = Database(std::move(options));
    log.clear();
    TreeTest::SetUp();
  }

  std::vector<Txn> log;
  std::vector<std::string> warnings;
};

TEST_F(QuotaTest, StatsNodeCountsTheQuotaPathAndItsSubtree) {
  c("/q", "ab");
  c("/qq", "outside");  // a sibling whose name merely starts with q
  set_quota("/q", limits(2, -1, -1, -1));
  EXPECT_EQ(stats("/q"), "count=1,bytes=2");  // recounted on create, /q itself included
  EXPECT_EQ(data("/zookeeper/quota/q/zookeeper_limits"),
            "count=2,bytes=-1=;byteHardLimit=-1;countHardLimit=-1");

  c("/q/a", "xyz");
  EXPECT_EQ(stats("/q"), "count=2,bytes=5");
  c("/q/a/deep", "1234");
  EXPECT_EQ(stats("/q"), "count=3,bytes=9");
  put("/q/a", "x");
  EXPECT_EQ(stats("/q"), "count=3,bytes=7");
  put("/q/a", std::string());
  EXPECT_EQ(stats("/q"), "count=3,bytes=6");
  del("/q/a/deep");
  EXPECT_EQ(stats("/q"), "count=2,bytes=2");
  c("/qq/x", "nothing");
  put("/qq", "o");
  EXPECT_EQ(stats("/q"), "count=2,bytes=2");
}

TEST_F(QuotaTest, StatsNodeChangesWithoutTxnStatOrDataSizeChange) {
  c("/q");
  set_quota("/q", limits(-1, 100, -1, -1));
  const zk::wire::Stat before = stat("/zookeeper/quota/q/zookeeper_stats");
  EXPECT_EQ(stats("/q"), "count=1,bytes=0");
  const int64_t size_before = db.counts().approximate_data_size;
  c("/q/child", "0123456789");
  // Only the new node's path (8) and data (10): Apache does not count the
  // stats text's growth in its approximate data size.
  EXPECT_EQ(db.counts().approximate_data_size, size_before + 8 + 10);
  EXPECT_EQ(stats("/q"), "count=2,bytes=10");
  zk::wire::Stat after = stat("/zookeeper/quota/q/zookeeper_stats");
  EXPECT_EQ(after.version, before.version);
  EXPECT_EQ(after.mzxid, before.mzxid);
  EXPECT_EQ(after.mtime, before.mtime);
  EXPECT_EQ(after.data_length, static_cast<int32_t>(stats("/q").size()));
}

TEST_F(QuotaTest, StatsNodeCreateIsRecountedWhateverItsData) {
  c("/q", "abc");
  c("/q/a", "de");
  c("/zookeeper/quota/q");
  // The stats node alone (no limits node): recounted, but no quota yet.
  c("/zookeeper/quota/q/zookeeper_stats", "count=77,bytes=77,extra=1");
  EXPECT_EQ(stats("/q"), "count=2,bytes=5");
  c("/q/b", "x");
  EXPECT_EQ(stats("/q"), "count=2,bytes=5");
  c("/zookeeper/quota/q/zookeeper_limits", limits(1, -1, -1, -1));
  c("/q/c", "yy");
  EXPECT_EQ(stats("/q"), "count=3,bytes=7");
}

TEST_F(QuotaTest, UpdatesKeepOtherKeysOfTheStatsText) {
  c("/q");
  set_quota("/q", limits(5, -1, -1, -1));
  put("/zookeeper/quota/q/zookeeper_stats", "count=10,bytes=3;zeta=1;alpha=2");
  c("/q/a", "xy");
  EXPECT_EQ(stats("/q"), "count=11,bytes=5=;alpha=2;zeta=1");
}

TEST_F(QuotaTest, NestedQuotasTheLongestPrefixGetsTheCounts) {
  c("/a", "1");
  c("/a/b", "22");
  c("/a/b/c", "333");
  set_quota("/a", limits(10, -1, -1, -1));
  // zkCli refuses nested quotas; the server takes them, as Apache's does.
  set_quota("/a/b", limits(10, -1, -1, -1));
  EXPECT_EQ(stats("/a"), "count=3,bytes=6");  // each recount covers the whole subtree
  EXPECT_EQ(stats("/a/b"), "count=2,bytes=5");
  c("/a/x", "4444");
  EXPECT_EQ(stats("/a"), "count=4,bytes=10");
  EXPECT_EQ(stats("/a/b"), "count=2,bytes=5");
  c("/a/b/c/d", "55555");
  EXPECT_EQ(stats("/a"), "count=4,bytes=10");
  EXPECT_EQ(stats("/a/b"), "count=3,bytes=10");
  del("/a/b/c/d");
  put("/a/b", "");
  EXPECT_EQ(stats("/a"), "count=4,bytes=10");
  EXPECT_EQ(stats("/a/b"), "count=2,bytes=3");
}

TEST_F(QuotaTest, DeletingTheLimitsNodeEndsTheQuota) {
  c("/q");
  set_quota("/q", limits(2, -1, -1, -1));
  c("/q/a");
  EXPECT_EQ(stats("/q"), "count=2,bytes=0");
  // zkCli's delquota: the limits and stats nodes go.
  del("/zookeeper/quota/q/zookeeper_limits");
  c("/q/b");
  EXPECT_EQ(stats("/q"), "count=2,bytes=0");
  del("/zookeeper/quota/q/zookeeper_stats");
  c("/q/c");
  EXPECT_FALSE(exists("/zookeeper/quota/q/zookeeper_stats"));
  // A new quota counts afresh.
  set_quota("/q", limits(2, -1, -1, -1));
  EXPECT_EQ(stats("/q"), "count=4,bytes=0");
}

TEST_F(QuotaTest, SnapshotLoadRecountsAndLogReplayContinues) {
  c("/q", "ab");
  set_quota("/q", limits(3, -1, -1, -1));
  c("/q/a", "cde");
  // Stale stats text in the snapshot (a client may write it): recounted on load.
  put("/zookeeper/quota/q/zookeeper_stats", "count=100,bytes=100");
  EXPECT_EQ(stats("/q"), "count=100,bytes=100");
  const std::string snapshot = snapshot_of(db);
  const size_t snapshot_at = log.size();
  c("/q/b", "f");
  put("/q/a", "");
  del("/q/b");
  c("/q/c", "gh");
  EXPECT_EQ(stats("/q"), "count=101,bytes=99");  // the live tree went on from the stale text

  Database restored;
  ASSERT_TRUE(restored.load_snapshot(snapshot).ok());
  auto stats_in = [](Database& d) {
    Response r = d.read(1, OpCode::kGetData,
                        encode(zk::wire::PathWatchRequest{"/zookeeper/quota/q/zookeeper_stats"}));
    EXPECT_EQ(r.err, Error::kOk);
    return decode_as<zk::wire::GetDataResponse>(r.body).data.value_or("<null>");
  };
  EXPECT_EQ(stats_in(restored), "count=2,bytes=5");
  for (size_t i = snapshot_at; i < log.size(); ++i) restored.apply(log[i]);
  EXPECT_EQ(stats_in(restored), "count=3,bytes=4");

  // A full replay from the empty tree gives what the live tree has.
  Database replayed;
  for (const Txn& txn : log) replayed.apply(txn);
  EXPECT_EQ(stats_in(replayed), "count=101,bytes=99");
}

TEST_F(QuotaTest, ReplayOverAFuzzySnapshotThatHoldsTheQuotaAlready) {
  c("/q");
  set_quota("/q", limits(3, -1, -1, -1));
  c("/q/a", "x");
  const std::string snapshot = snapshot_of(db);
  Database restored;
  ASSERT_TRUE(restored.load_snapshot(snapshot).ok());
  // Replaying every txn over it: creates of existing nodes change nothing.
  for (const Txn& txn : log) restored.apply(txn);
  Response r =
      restored.read(1, OpCode::kGetData,
                    encode(zk::wire::PathWatchRequest{"/zookeeper/quota/q/zookeeper_stats"}));
  EXPECT_EQ(decode_as<zk::wire::GetDataResponse>(r.body).data, "count=2,bytes=1");
}

TEST_F(QuotaTest, WithoutEnforcementLimitsAreOnlyFigures) {
  c("/q");
  set_quota("/q", limits(-1, -1, 2, 3));
  EXPECT_EQ(c("/q/a", "12").response.err, Error::kOk);
  EXPECT_EQ(c("/q/b", "34").response.err, Error::kOk);
  EXPECT_EQ(put("/q/a", "123456").response.err, Error::kOk);
  EXPECT_EQ(stats("/q"), "count=3,bytes=8");
}

TEST_F(QuotaTest, EnforcedHardCountLimitFailsTheCreate) {
  enforce();
  c("/q");
  set_quota("/q", limits(-1, -1, 2, -1));
  EXPECT_EQ(c("/q/a").response.err, Error::kOk);
  ApplyResult over = c("/q/b");
  EXPECT_EQ(over.response.err, Error::kQuotaExceeded);
  EXPECT_TRUE(std::holds_alternative<ErrorTxn>(last_txn.body));
  EXPECT_FALSE(exists("/q/b"));
  EXPECT_EQ(stats("/q"), "count=2,bytes=0");
  EXPECT_EQ(warnings, std::vector<std::string>{"Quota exceeded: /q [current count=3, "
                                               "hardCountLimit=2]"});
  // setData changes no count: allowed.
  EXPECT_EQ(put("/q/a", "x").response.err, Error::kOk);
  // After a delete there is room again.
  EXPECT_EQ(del("/q/a").response.err, Error::kOk);
  EXPECT_EQ(c("/q/b").response.err, Error::kOk);
  // Paths outside the quota are not limited.
  EXPECT_EQ(c("/free").response.err, Error::kOk);
}

TEST_F(QuotaTest, EnforcedSoftLimitsOnlyWarn) {
  enforce();
  c("/q");
  set_quota("/q", limits(1, 2, -1, -1));
  EXPECT_EQ(c("/q/a", "abc").response.err, Error::kOk);
  EXPECT_EQ(warnings,
            (std::vector<std::string>{"Quota exceeded: /q [current count=2, softCountLimit=1]",
                                      "Quota exceeded: /q [current bytes=3, softByteLimit=2]"}));
  EXPECT_EQ(stats("/q"), "count=2,bytes=3");
}

TEST_F(QuotaTest, EnforcedHardByteLimitFailsCreateAndSetData) {
  enforce();
  c("/q", "ab");
  set_quota("/q", limits(-1, -1, -1, 5));
  EXPECT_EQ(c("/q/a", "abcd").response.err, Error::kQuotaExceeded);
  EXPECT_EQ(c("/q/a", "abc").response.err, Error::kOk);  // exactly at the limit
  EXPECT_EQ(put("/q/a", "abcd").response.err, Error::kQuotaExceeded);
  EXPECT_EQ(put("/q/a", "a").response.err, Error::kOk);   // shrinking
  EXPECT_EQ(put("/q", "abcd").response.err, Error::kOk);  // back to 5
  EXPECT_EQ(stats("/q"), "count=2,bytes=5");
  // A create without data changes no bytes: the byte limit does not apply.
  EXPECT_EQ(c("/q/empty").response.err, Error::kOk);
}

TEST_F(QuotaTest, EnforcementComesAfterTheNodeChecksAndBeforeTheVersion) {
  enforce();
  c("/q");
  set_quota("/q", limits(-1, -1, 1, 0));
  EXPECT_EQ(c("/q").response.err, Error::kNodeExists);
  EXPECT_EQ(c("/q/none/x").response.err, Error::kNoNode);
  EXPECT_EQ(logged(set_data("/q", std::string("x"), 5)).response.err, Error::kQuotaExceeded);
  EXPECT_EQ(logged(set_data("/q", std::string(), 5)).response.err, Error::kBadVersion);
}

TEST_F(QuotaTest, EnforcementCountsTxnsPreparedButNotApplied) {
  enforce();
  c("/q");
  set_quota("/q", limits(-1, -1, 3, -1));
  auto prep_create = [&](const std::string& path) {
    int64_t z = db.last_zxid() + 1 + static_cast<int64_t>(log.size());
    Txn t = db.prepare(
        kSession, 1, OpCode::kCreate,
        encode(zk::wire::CreateRequest{path, std::string("x"), zk::wire::open_acl_unsafe(), 0}), z,
        time_of(z));
    log.push_back(t);
    return t;
  };
  log.clear();
  Txn a = prep_create("/q/a");
  Txn b = prep_create("/q/b");
  Txn c3 = prep_create("/q/c");
  EXPECT_TRUE(std::holds_alternative<CreateTxn>(a.body));
  EXPECT_TRUE(std::holds_alternative<CreateTxn>(b.body));
  EXPECT_TRUE(std::holds_alternative<ErrorTxn>(c3.body));
  EXPECT_EQ(std::get<ErrorTxn>(c3.body).err, Error::kQuotaExceeded);
  for (const Txn& t : log) db.apply(t);
  EXPECT_EQ(stats("/q"), "count=3,bytes=2");
  // Once applied, the pending figures are gone: a delete makes room again.
  log.clear();
  EXPECT_EQ(del("/q/a").response.err, Error::kOk);
  EXPECT_EQ(c("/q/d").response.err, Error::kOk);
  EXPECT_EQ(c("/q/e").response.err, Error::kQuotaExceeded);
}

TEST_F(QuotaTest, EnforcementInAMultiSeesTheEarlierOperations) {
  enforce();
  c("/q");
  set_quota("/q", limits(-1, -1, 2, -1));
  auto op = [](const std::string& path) {
    return MultiOp{OpCode::kCreate,
                   zk::wire::CreateRequest{path, std::string(), zk::wire::open_acl_unsafe(), 0}};
  };
  ApplyResult r =
      logged(write(OpCode::kMulti, zk::wire::encode_multi_request({op("/q/a"), op("/q/b")})));
  ASSERT_EQ(r.response.err, Error::kOk);
  std::vector<MultiResult> results;
  ASSERT_TRUE(zk::wire::decode_multi_response(r.response.body, results));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].err, Error::kOk);
  EXPECT_EQ(results[1].err, Error::kQuotaExceeded);
  EXPECT_FALSE(exists("/q/a"));
  EXPECT_EQ(stats("/q"), "count=1,bytes=0");
}

}  // namespace
}  // namespace zkd::tree::testing
