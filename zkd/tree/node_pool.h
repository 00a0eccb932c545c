// SPDX-License-Identifier: Apache-2.0
// Memory for znodes (znode.h). Blocks up to 4 KiB are carved from 256 KiB
// slabs mapped for this pool alone, one size class per 8 bytes; a freed block
// waits on its class's free list for the next node of that size. Larger
// blocks come from malloc.
//
// Why not malloc for all: a node lives long and is allocated between the
// short-lived buffers of the request that creates it, so in the general heap
// the freed buffers leave holes between nodes that malloc can neither reuse
// for nodes nor return (measured: a third of the RSS of a million nodes).
// Here nodes sit densely, with no per-block header. Memory of freed blocks is
// kept for reuse while the pool lives; when it goes, its slabs go to a small
// process-wide cache that the next pool takes from (node_pool.cc). A pool is
// not thread-safe; pools of different threads may coexist.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace zkd::tree {

class NodePool {
 public:
  NodePool() = default;
  ~NodePool();
  NodePool(NodePool&& other) noexcept;
  NodePool& operator=(NodePool&& other) noexcept;
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;

  // A block of at least `size` bytes, aligned to 8; `capacity` is set to its
  // usable size, which deallocate() must be given back. Throws bad_alloc.
  void* allocate(size_t size, size_t& capacity);
  void deallocate(void* block, size_t capacity);

  // Bytes mapped for slabs (blocks in use, free ones and the unused tails).
  size_t slab_bytes() const { return slabs_.size() * kSlabBytes; }

  static constexpr size_t kGrain = 8;
  static constexpr size_t kMaxPooled = 4096;
  static constexpr size_t kSlabBytes = 256 * 1024;

 private:
  struct FreeBlock {
    FreeBlock* next;
  };
  struct SizeClass {
    FreeBlock* free = nullptr;  // freed blocks of this size
    char* next = nullptr;       // the unused part of this class's current slab
    char* end = nullptr;
  };
  void release_all();

  std::array<SizeClass, kMaxPooled / kGrain + 1> classes_{};
  std::vector<void*> slabs_;
};

}  // namespace zkd::tree
