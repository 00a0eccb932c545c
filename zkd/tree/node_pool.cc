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
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace zkd::tree {
namespace {

// Slabs released by pools that went away, kept for the next pool to take:
// a process that builds and drops many trees (a follower installing
// snapshots, the simulator's thousands of replicas) would otherwise spend
// more time in mmap, munmap and page faults than in the trees. At most
// kCachedSlabs are kept (16 MiB); a reused slab is not zeroed, which the pool
// never relies on. Thread-safe: pools of different threads share it.
class SlabCache {
 public:
  static constexpr size_t kCachedSlabs = 64;

  static SlabCache& instance() {
    static SlabCache* cache = new SlabCache();  // never destroyed: pools may outlive statics
    return *cache;
  }

  void* take() {
    {
      std::lock_guard lock(mu_);
      if (!slabs_.empty()) {
        void* slab = slabs_.back();
        slabs_.pop_back();
        return slab;
      }
    }
    void* slab = mmap(nullptr, NodePool::kSlabBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (slab == MAP_FAILED) throw std::bad_alloc();
    return slab;
  }

  // `slab` must be unpoisoned (the pool's blocks in it are all dead).
  void give(void* slab) {
    {
      std::lock_guard lock(mu_);
      if (slabs_.size() < kCachedSlabs) {
        slabs_.push_back(slab);
        return;
      }
    }
    munmap(slab, NodePool::kSlabBytes);
  }

 private:
  SlabCache() { slabs_.reserve(kCachedSlabs); }

  std::mutex mu_;
  std::vector<void*> slabs_;
};

}  // namespace

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
    SlabCache::instance().give(slab);
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
    slabs_.reserve(slabs_.size() + 1);  // so that a taken slab is never lost
    void* slab = SlabCache::instance().take();
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
