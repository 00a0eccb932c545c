// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_files/apache_snapshot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/zkd/apache_files/apache_test_util.h"

namespace zkd::apache {
namespace {

using test::apache_snapshot_bytes;
using test::describe;
using test::seal;
using ::testing::AllOf;
using ::testing::HasSubstr;

zkd::StatusOr<tree::LoadedSnapshot> read(std::string_view bytes) {
  return read_apache_snapshot(bytes, "snapshot.2a", /*extended_types=*/true, nullptr);
}

TEST(ApacheSnapshotTest, WrittenSnapshotReadsBackNodeForNode) {
  const tree::DataTree tree = test::varied_tree();
  const std::string bytes = apache_snapshot_bytes(tree, test::varied_sessions());
  auto loaded = read(bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(describe(loaded->tree), describe(tree));
  EXPECT_EQ(loaded->tree.digest(), tree.digest());
  EXPECT_EQ(loaded->sessions.ids(), test::varied_sessions().ids());
  EXPECT_EQ(loaded->sessions.timeout(test::kSession), 10'000);
  // The kinds come back from the owners: the ephemeral, container and TTL.
  EXPECT_EQ(loaded->tree.kinds().ephemerals(test::kSession).size(), 1u);
  EXPECT_EQ(loaded->tree.find("/box")->stat().kind, tree::NodeKind::kContainer);
  EXPECT_EQ(loaded->tree.find("/ttl")->stat().kind, tree::NodeKind::kTtl);
  // Null data stays null, empty stays empty.
  EXPECT_FALSE(loaded->tree.find("/a/b/c")->data().has_value());
  EXPECT_EQ(loaded->tree.find("/box")->data(), std::string_view());
}

TEST(ApacheSnapshotTest, TheRootIsWrittenAsTheEmptyPathAndTheNodesEndWithSlash) {
  const std::string bytes = apache_snapshot_bytes(tree::DataTree(), tree::SessionTable());
  zk::wire::Reader r(bytes);
  EXPECT_EQ(r.int32(), kSnapshotMagic);
  EXPECT_EQ(r.int32(), 2);
  EXPECT_EQ(r.int64(), -1);
  EXPECT_EQ(r.int32(), 0);  // sessions
  const int32_t acl_lists = r.int32();
  for (int32_t i = 0; i < acl_lists; ++i) {
    r.int64();
    zk::wire::read_acls(r);
  }
  EXPECT_EQ(r.ustring(), "");  // the root
  // The seal closes the file: Adler-32 of everything before it, then "/".
  const std::string_view tail = std::string_view(bytes).substr(bytes.size() - 13);
  zk::wire::Reader t(tail);
  EXPECT_EQ(static_cast<uint32_t>(t.int64()), adler32(1, bytes.substr(0, bytes.size() - 13)));
  EXPECT_EQ(t.ustring(), "/");
}

TEST(ApacheSnapshotTest, ReadsTheDigestOf36AndTheLastZxidOf39AfterTheSeal) {
  const tree::DataTree tree = test::varied_tree();
  std::string bytes = apache_snapshot_bytes(tree, test::varied_sessions());
  {
    zk::wire::Writer w(bytes);
    w.int64(0x2a);  // zxid
    w.int32(2);     // digest version
    w.int64(12345);
  }
  seal(bytes);
  auto with_digest = read(bytes);
  ASSERT_TRUE(with_digest.ok()) << with_digest.status().message();
  EXPECT_EQ(with_digest->zxid, 0);  // only the file name tells
  bytes = test::with_last_zxid(bytes, 0x2b);
  auto loaded = read(bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(describe(loaded->tree), describe(tree));
  EXPECT_EQ(loaded->zxid, 0x2b);
}

TEST(ApacheSnapshotTest, AFlippedByteIsDamageNamingTheFileAndOffset) {
  const tree::DataTree tree = test::varied_tree();
  std::string bytes = apache_snapshot_bytes(tree, test::varied_sessions());
  // Inside /a/b's binary data: only the seal can tell.
  const size_t at = bytes.find(std::string("\x10\x11\x12\x13", 4));
  ASSERT_NE(at, std::string::npos);
  bytes[at] ^= 0x40;
  auto loaded = read(bytes);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().kind(), zkd::Status::Kind::kCorruption);
  EXPECT_THAT(loaded.status().message(),
              AllOf(HasSubstr("snapshot.2a: offset "), HasSubstr("checksum")));
}

TEST(ApacheSnapshotTest, ACutShortSnapshotIsDamage) {
  const std::string bytes = apache_snapshot_bytes(test::varied_tree(), test::varied_sessions());
  for (size_t keep : {size_t{3}, size_t{40}, bytes.size() / 2, bytes.size() - 1}) {
    auto loaded = read(std::string_view(bytes).substr(0, keep));
    ASSERT_FALSE(loaded.ok()) << keep;
    EXPECT_THAT(loaded.status().message(), HasSubstr("snapshot.2a: offset ")) << keep;
  }
}

TEST(ApacheSnapshotTest, OtherFilesAreNotTakenForSnapshots) {
  std::string log;
  zk::wire::Writer w(log);
  w.int32(kLogMagic);
  w.int32(2);
  w.int64(0);
  auto loaded = read(log);
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(), HasSubstr("not an Apache ZooKeeper snapshot"));
}

TEST(ApacheSnapshotTest, WithoutExtendedTypesATtlOwnerIsASession) {
  // Apache reads owners the same way: extendedTypesEnabled decides.
  const std::string bytes = apache_snapshot_bytes(test::varied_tree(), test::varied_sessions());
  auto loaded = read_apache_snapshot(bytes, "snapshot.2a", false, nullptr);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->tree.find("/ttl")->stat().kind, tree::NodeKind::kEphemeral);
  EXPECT_EQ(loaded->tree.find("/box")->stat().kind, tree::NodeKind::kContainer);
}

}  // namespace
}  // namespace zkd::apache
