// SPDX-License-Identifier: Apache-2.0
// NodePool (node_pool.h): size classes, reuse of freed blocks, large blocks
// from malloc, and moving a pool keeps its blocks.
#include "zkd/tree/node_pool.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <vector>

namespace zkd::tree {
namespace {

TEST(NodePool, CapacityIsTheSizeRoundedUpToTheGrain) {
  NodePool pool;
  size_t capacity = 0;
  void* a = pool.allocate(201, capacity);
  EXPECT_EQ(capacity, 208u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 8, 0u);
  std::memset(a, 0xab, capacity);
  pool.deallocate(a, capacity);
}

TEST(NodePool, AFreedBlockIsReusedForTheNextOfItsSizeOnly) {
  NodePool pool;
  size_t c1 = 0, c2 = 0, c3 = 0;
  void* a = pool.allocate(100, c1);
  pool.deallocate(a, c1);
  void* other = pool.allocate(300, c2);  // another class: not the freed block
  EXPECT_NE(other, a);
  void* again = pool.allocate(97, c3);  // same class (104)
  EXPECT_EQ(again, a);
  pool.deallocate(again, c3);
  pool.deallocate(other, c2);
}

TEST(NodePool, BlocksDoNotOverlapAcrossSlabs) {
  NodePool pool;
  std::vector<std::pair<char*, size_t>> blocks;
  for (int i = 0; i < 5000; ++i) {  // several 256 KiB slabs of 216-byte blocks
    size_t capacity = 0;
    auto* p = static_cast<char*>(pool.allocate(216, capacity));
    std::memset(p, i & 0xff, capacity);
    blocks.emplace_back(p, capacity);
  }
  EXPECT_GE(pool.slab_bytes(), 5000u * 216u);
  for (size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_EQ(static_cast<unsigned char>(blocks[i].first[0]), i & 0xff);
    EXPECT_EQ(static_cast<unsigned char>(blocks[i].first[215]), i & 0xff);
  }
  std::set<char*> distinct;
  for (auto& [p, c] : blocks) distinct.insert(p);
  EXPECT_EQ(distinct.size(), blocks.size());
}

TEST(NodePool, LargeBlocksComeFromMallocWithTheirExactSize) {
  NodePool pool;
  size_t capacity = 0;
  void* big = pool.allocate(NodePool::kMaxPooled + 1, capacity);
  EXPECT_EQ(capacity, NodePool::kMaxPooled + 1);
  EXPECT_EQ(pool.slab_bytes(), 0u);
  pool.deallocate(big, capacity);
}

TEST(NodePool, AMovedPoolKeepsItsBlocks) {
  NodePool pool;
  size_t capacity = 0;
  auto* p = static_cast<char*>(pool.allocate(64, capacity));
  std::memset(p, 7, capacity);
  NodePool moved(std::move(pool));
  EXPECT_EQ(p[63], 7);
  EXPECT_EQ(pool.slab_bytes(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
  moved.deallocate(p, capacity);
}

// The slab of a pool that went away is taken by the next pool, not mapped
// again; its old contents are the new pool's to overwrite.
TEST(NodePool, TheSlabOfADroppedPoolIsReusedByTheNextPool) {
  void* first = nullptr;
  {
    NodePool pool;
    size_t capacity = 0;
    first = pool.allocate(32, capacity);
    std::memset(first, 7, capacity);
  }
  NodePool next;
  size_t capacity = 0;
  auto* reused = static_cast<char*>(next.allocate(48, capacity));
  EXPECT_EQ(reused, first);
  std::memset(reused, 9, capacity);
  EXPECT_EQ(reused[47], 9);
  next.deallocate(reused, capacity);
}

}  // namespace
}  // namespace zkd::tree
