// SPDX-License-Identifier: Apache-2.0
// The quota text format (Apache's StatsTrack) and the quota path set
// (Apache's PathTrie of quota paths).
#include <gtest/gtest.h>

#include "zkd/tree/quota_paths.h"

namespace zkd::tree {
namespace {

TEST(StatsTrackTest, FormatsCountAndBytesFirstThenSortedExtrasAfterAnEquals) {
  StatsTrack t;
  EXPECT_EQ(t.to_string(), "count=-1,bytes=-1");
  t.set(StatsTrack::kCount, 0);
  t.set(StatsTrack::kBytes, 0);
  EXPECT_EQ(t.to_string(), "count=0,bytes=0");
  // What zkCli's setquota -n 2 writes into zookeeper_limits.
  t.set(StatsTrack::kCount, 2);
  t.set(StatsTrack::kBytes, -1);
  t.set(StatsTrack::kCountHardLimit, -1);
  t.set(StatsTrack::kByteHardLimit, -1);
  EXPECT_EQ(t.to_string(), "count=2,bytes=-1=;byteHardLimit=-1;countHardLimit=-1");
}

TEST(StatsTrackTest, ParsesWhatItWritesAndOldStyleText) {
  auto t = StatsTrack::parse("count=2,bytes=-1=;byteHardLimit=7;countHardLimit=3");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->count(), 2);
  EXPECT_EQ(t->bytes(), -1);
  EXPECT_EQ(t->count_hard_limit(), 3);
  EXPECT_EQ(t->byte_hard_limit(), 7);
  EXPECT_EQ(t->to_string(), "count=2,bytes=-1=;byteHardLimit=7;countHardLimit=3");

  auto old = StatsTrack::parse("count=4,bytes=10");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->count_hard_limit(), -1);  // absent
  EXPECT_EQ(old->to_string(), "count=4,bytes=10");
}

TEST(StatsTrackTest, ParsesLikeJava) {
  auto empty = StatsTrack::parse("");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->count(), -1);
  auto runs = StatsTrack::parse("count=1;;,,bytes=+5,,");  // separator runs, trailing ones
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->count(), 1);
  EXPECT_EQ(runs->bytes(), 5);
  auto blank_value = StatsTrack::parse("count==9");  // kv[1] empty: -1
  ASSERT_TRUE(blank_value);
  EXPECT_EQ(blank_value->count(), -1);
  auto duplicate = StatsTrack::parse("count=1,count=2");
  ASSERT_TRUE(duplicate);
  EXPECT_EQ(duplicate->count(), 2);
  // Where Java throws.
  EXPECT_FALSE(StatsTrack::parse("count"));
  EXPECT_FALSE(StatsTrack::parse("count="));
  EXPECT_FALSE(StatsTrack::parse(",count=1"));
  EXPECT_FALSE(StatsTrack::parse("count=x"));
  EXPECT_FALSE(StatsTrack::parse("count=99999999999999999999"));
}

TEST(QuotaPathsTest, LongestQuotaPrefixByComponent) {
  QuotaPaths q;
  EXPECT_FALSE(q.root_of("/a"));
  q.add("/a");
  q.add("/a/b/c");
  EXPECT_EQ(q.root_of("/a"), "/a");
  EXPECT_EQ(q.root_of("/a/x"), "/a");
  EXPECT_EQ(q.root_of("/a/b"), "/a");
  EXPECT_EQ(q.root_of("/a/b/c"), "/a/b/c");
  EXPECT_EQ(q.root_of("/a/b/c/d/e"), "/a/b/c");
  EXPECT_FALSE(q.root_of("/ab"));  // components, not characters
  EXPECT_FALSE(q.root_of("/"));
  q.remove("/a");
  EXPECT_FALSE(q.root_of("/a/b"));
  EXPECT_EQ(q.root_of("/a/b/c/d"), "/a/b/c");
}

TEST(QuotaPathsTest, NormalisesAsApachesTrieSplits) {
  QuotaPaths q;
  q.add("x//y");  // no leading slash, empty component
  EXPECT_EQ(q.root_of("/x/y/z"), "/x/y");
  q.add("/");  // kept, never matches
  EXPECT_FALSE(q.root_of("/other"));
  q.add("");  // Apache throws; ignored
  EXPECT_EQ(q.paths().size(), 2u);
  EXPECT_EQ(quota_limit_path("/x/y"), "/zookeeper/quota/x/y/zookeeper_limits");
  EXPECT_EQ(quota_stat_path("/x/y"), "/zookeeper/quota/x/y/zookeeper_stats");
}

}  // namespace
}  // namespace zkd::tree
