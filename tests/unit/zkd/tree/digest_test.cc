// SPDX-License-Identifier: Apache-2.0
// The tree digest (zkd/tree/digest.h): what changes it, what does not, and
// that it stays the sum over the nodes through every kind of mutation.
#include "zkd/tree/digest.h"

#include <gtest/gtest.h>

#include "zkd/tree/data_tree.h"

namespace zkd::tree {
namespace {

using zk::wire::Buffer;
using zk::wire::Error;

const zk::wire::ACLs kOpen = zk::wire::open_acl_unsafe();

Error create(DataTree& t, std::string_view path, Buffer data = std::string("v"), int64_t zxid = 1) {
  return t.create(path, data, kOpen, 0, -1, zxid, 1000 * zxid);
}

TEST(TreeDigest, IsTheSameOnEveryBuildAndMachine) {
  // Replicas of different builds compare digests: the hash must not change
  // without a new digest version in the peer protocol.
  DataTree t;
  ASSERT_EQ(create(t, "/a", std::string("some data"), 2), Error::kOk);
  std::string long_data;  // the 32-byte stripes, the 8-byte words, the tail
  for (int i = 0; i < 75; ++i) long_data += static_cast<char>('a' + i % 26);
  ASSERT_EQ(create(t, "/a/long", long_data, 3), Error::kOk);
  EXPECT_EQ(t.digest(), 0x7685260a27c1373full);
}

TEST(TreeDigest, EqualTreesHaveEqualDigestsWhateverTheOrderOfIndependentChanges) {
  DataTree a, b;
  ASSERT_EQ(create(a, "/x", std::string("1"), 2), Error::kOk);
  ASSERT_EQ(create(a, "/y", std::string("2"), 3), Error::kOk);
  ASSERT_EQ(create(b, "/y", std::string("2"), 3), Error::kOk);
  ASSERT_EQ(create(b, "/x", std::string("1"), 2), Error::kOk);
  // The root's cversion and pzxid differ with the order: set them alike.
  a.raise_cversion("/", 5, 9);
  b.raise_cversion("/", 5, 9);
  EXPECT_EQ(a.digest(), b.digest());
}

TEST(TreeDigest, DataStatAndNullnessEachChangeIt) {
  DataTree base;
  ASSERT_EQ(create(base, "/n"), Error::kOk);
  const uint64_t before = base.digest();

  DataTree data;
  ASSERT_EQ(create(data, "/n"), Error::kOk);
  ASSERT_EQ(data.set_data("/n", std::string("w"), 0, 1, 1000), Error::kOk);
  EXPECT_NE(data.digest(), before);
  ASSERT_EQ(data.set_data("/n", std::string("v"), 0, 1, 1000), Error::kOk);
  EXPECT_EQ(data.digest(), before);  // the same state again

  DataTree null_data;
  ASSERT_EQ(create(null_data, "/n", std::nullopt), Error::kOk);
  DataTree empty_data;
  ASSERT_EQ(create(empty_data, "/n", std::string()), Error::kOk);
  EXPECT_NE(null_data.digest(), empty_data.digest());

  DataTree acl;
  ASSERT_EQ(create(acl, "/n"), Error::kOk);
  ASSERT_EQ(acl.set_acl("/n", kOpen, 1), Error::kOk);  // aversion 1
  EXPECT_NE(acl.digest(), before);
}

TEST(TreeDigest, TheZookeeperSubtreeDoesNotCount) {
  DataTree a, b;
  ASSERT_EQ(create(b, "/zookeeper/quota/q"), Error::kOk);
  EXPECT_EQ(a.digest(), b.digest());
  EXPECT_FALSE(counts_in_digest("/zookeeper"));
  EXPECT_FALSE(counts_in_digest("/zookeeper/config"));
  EXPECT_TRUE(counts_in_digest("/zookeeperx"));
  EXPECT_TRUE(counts_in_digest("/"));
}

TEST(TreeDigest, StaysTheSumOverTheNodesThroughEveryMutation) {
  DataTree t;
  auto check = [&t](const char* after) {
    EXPECT_EQ(t.digest(), t.compute_digest()) << "after " << after;
  };
  ASSERT_EQ(create(t, "/a", std::string("1"), 2), Error::kOk);
  check("create");
  ASSERT_EQ(create(t, "/a/b", std::string(100, 'x'), 3), Error::kOk);
  check("create under a node");
  ASSERT_EQ(t.set_data("/a/b", std::string(5000, 'y'), 1, 4, 4000), Error::kOk);
  check("set_data that moves the node");
  ASSERT_EQ(t.set_acl("/a", kOpen, 1), Error::kOk);
  check("set_acl");
  t.raise_cversion("/a", 7, 5);
  check("raise_cversion");
  ASSERT_EQ(t.remove("/a/missing", 6), Error::kNoNode);
  check("remove of a missing node (the parent's pzxid moves)");
  ASSERT_EQ(t.remove("/a", 7), Error::kOk);  // with its child, as a replay may
  check("remove of a subtree");
  DataTree moved(std::move(t));
  EXPECT_EQ(moved.digest(), moved.compute_digest());
}

}  // namespace
}  // namespace zkd::tree
