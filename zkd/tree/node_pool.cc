// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/node_pool.h"

#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
// Free blocks are poisoned, so AddressSanitizer reports a use after free of a
// node as it would for malloc'd memory.
#define ZK_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define ZK_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define ZK_POISON(p, n) ((void)(p), (void)(n))
#define ZK_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#include <cstdlib>
#include <new>
#include <utility>

namespace zkd::tree {

NodePool::~NodePool() { release_all(); }

NodePool::NodePool(NodePool&& other) noexcept
    : classes_(std::exchange(other.classes_, {})), slabs_(std::exchange(other.slabs_, {})) {}

NodePool& NodePool::operator=(NodePool&& other) noexcept {
  if (this != &other) {
    release_all();
    classes_ = std::exchange(other.classes_, {});
    slabs_ = std::exchange(other.slabs_, {});
  }
  return *this;
}

void NodePool::release_all() {
  for (void* slab : slabs_) {
    ZK_UNPOISON(slab, kSlabBytes);
    munmap(slab, kSlabBytes);
  }
  slabs_.clear();
  classes_ = {};
}

void* NodePool::allocate(size_t size, size_t& capacity) {
  capacity = (size + kGrain - 1) / kGrain * kGrain;
  if (capacity > kMaxPooled) {
    void* block = std::malloc(size);
    if (block == nullptr) throw std::bad_alloc();
    capacity = size;
    return block;
  }
  SizeClass& c = classes_[capacity / kGrain];
  if (c.free != nullptr) {
    FreeBlock* block = c.free;
    ZK_UNPOISON(block, capacity);
    c.free = block->next;
    return block;
  }
  if (static_cast<size_t>(c.end - c.next) < capacity) {
    void* slab =
        mmap(nullptr, kSlabBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (slab == MAP_FAILED) throw std::bad_alloc();
    slabs_.push_back(slab);
    c.next = static_cast<char*>(slab);
    c.end = c.next + kSlabBytes;
  }
  void* block = c.next;
  c.next += capacity;
  return block;
}

void NodePool::deallocate(void* block, size_t capacity) {
  if (capacity > kMaxPooled) {
    std::free(block);
    return;
  }
  SizeClass& c = classes_[capacity / kGrain];
  c.free = new (block) FreeBlock{c.free};
  ZK_POISON(block, capacity);
}

}  // namespace zkd::tree
