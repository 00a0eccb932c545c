// SPDX-License-Identifier: Apache-2.0
// The cache of the linearizability search (check_search.cc), private to
// zk::lab::checker: a set of keys (strings of 32-bit words). The words live
// in one pool; the table holds (hash, offset, length) and probes linearly.
// Offsets are 32 bits, so the pool may hold at most 2^32 words: the caller
// keeps it below that (words()).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace zk::lab::check::detail {

class KeySet {
 public:
  // Adds `key` (not empty); false when it was there already.
  bool insert(const std::vector<uint32_t>& key) {
    if ((used_ + 1) * 2 > slots_.size()) grow();
    const uint64_t h = hash(key);
    const size_t mask = slots_.size() - 1;
    for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.length == 0) {
        slot = {h, static_cast<uint32_t>(pool_.size()), static_cast<uint32_t>(key.size())};
        pool_.insert(pool_.end(), key.begin(), key.end());
        ++used_;
        return true;
      }
      if (slot.hash == h && slot.length == key.size() &&
          std::equal(key.begin(), key.end(), pool_.begin() + slot.offset)) {
        return false;
      }
    }
  }

  size_t words() const { return pool_.size(); }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t offset = 0;
    uint32_t length = 0;  // 0: empty
  };

  static uint64_t hash(const std::vector<uint32_t>& key) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ key.size();
    for (uint32_t w : key) {
      h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
      h ^= h >> 31;
    }
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 32);
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.length == 0) continue;
      size_t i = static_cast<size_t>(slot.hash) & mask;
      while (slots_[i].length != 0) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  std::vector<uint32_t> pool_;
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace zk::lab::check::detail
