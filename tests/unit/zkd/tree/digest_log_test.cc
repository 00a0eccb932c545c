// SPDX-License-Identifier: Apache-2.0
// The Database's digest log (what `hash` prints): the tree digest after
// every zxid that is a multiple of 128, the newest 1024, as Apache's
// DataTree keeps them; a snapshot load starts it afresh.
#include <gtest/gtest.h>

#include "tree_fixture.h"
#include "zkd/tree/data_tree.h"
#include "zkd/tree/snapshot.h"

namespace zkd::tree::testing {
namespace {

class DigestLogTest : public TreeTest {};

TEST_F(DigestLogTest, KeepsTheDigestAfterEveryHundredAndTwentyEighthZxid) {
  EXPECT_TRUE(db.digest_log().empty());
  while (db.last_zxid() < 300) {
    create("/n" + std::to_string(db.last_zxid()));
    if (db.last_zxid() == 128) {
      ASSERT_EQ(db.digest_log().size(), 1u);
      EXPECT_EQ(db.digest_log().back().digest, db.tree().digest());
    }
  }
  ASSERT_EQ(db.digest_log().size(), 2u);
  EXPECT_EQ(db.digest_log()[0].zxid, 128);
  EXPECT_EQ(db.digest_log()[1].zxid, 256);
  EXPECT_NE(db.digest_log()[0].digest, db.digest_log()[1].digest);
}

TEST_F(DigestLogTest, KeepsTheNewestLimitAndForgetsThemOnALoad) {
  const int64_t last = Database::kDigestLogInterval * (Database::kDigestLogLimit + 3);
  while (db.last_zxid() < last) create("/n" + std::to_string(db.last_zxid()));
  ASSERT_EQ(db.digest_log().size(), Database::kDigestLogLimit);
  EXPECT_EQ(db.digest_log().front().zxid, Database::kDigestLogInterval * 4);
  EXPECT_EQ(db.digest_log().back().zxid, last);
  LoadedSnapshot fresh{.zxid = 1, .tree = DataTree(), .sessions = {}, .walked = 1};
  db.load(std::move(fresh));
  EXPECT_TRUE(db.digest_log().empty());
}

}  // namespace
}  // namespace zkd::tree::testing
