// SPDX-License-Identifier: Apache-2.0
// Snapshots an older zkd wrote load in this one (testdata/: a snapshot of
// zkd 0.1, whose payload, format 1, does not say how far its walk saw).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "zkd/storage/env.h"
#include "zkd/storage/snapshot_file.h"
#include "zkd/tree/database.h"
#include "zkd/tree/snapshot.h"

namespace zkd::server {
namespace {

TEST(SnapshotUpgrade, AZkd01SnapshotLoadsAndCountsAsWalkedAtItsZxid) {
  auto file = storage::read_snapshot_file(
      storage::posix_env(), std::string(ZK_TESTDATA_DIR) + "/zkd-0.1-snapshot.000000000000001b");
  ASSERT_TRUE(file.ok()) << file.status().message();
  auto loaded = tree::read_snapshot(file->payload);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->zxid, 0x1b);
  EXPECT_EQ(loaded->walked, 0x1b);
  const tree::Node* v1 = loaded->tree.find("/v1");
  ASSERT_NE(v1, nullptr);
  EXPECT_EQ(v1->data(), std::string_view("written by zkd 0.1"));
  EXPECT_EQ(v1->children().size(), 8u);

  tree::Database db;
  ASSERT_TRUE(db.load_snapshot(file->payload).ok());
  EXPECT_EQ(db.last_zxid(), 0x1b);
  EXPECT_EQ(db.fuzzy_until(), 0x1b);
}

}  // namespace
}  // namespace zkd::server
