// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/auth_ids.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace zkd::tree {
namespace {

// Java's String.hashCode over the UTF-16 units of `utf8` (a malformed byte
// counts as U+FFFD).
uint32_t java_string_hash(std::string_view utf8) {
  uint32_t h = 0;
  auto unit = [&h](uint32_t u) { h = 31 * h + u; };
  for (size_t i = 0; i < utf8.size();) {
    const auto b = static_cast<unsigned char>(utf8[i]);
    const size_t length = b < 0x80           ? 1
                          : (b >> 5) == 0x6  ? 2
                          : (b >> 4) == 0xe  ? 3
                          : (b >> 3) == 0x1e ? 4
                                             : 0;
    uint32_t code = length == 1 ? b : length == 2 ? b & 0x1f : length == 3 ? b & 0x0f : b & 0x07;
    bool ok = length != 0 && i + length <= utf8.size();
    for (size_t k = 1; ok && k < length; ++k) {
      const auto c = static_cast<unsigned char>(utf8[i + k]);
      ok = (c & 0xc0) == 0x80;
      code = (code << 6) | (c & 0x3f);
    }
    if (!ok) {
      unit(0xfffd);
      ++i;
      continue;
    }
    if (code >= 0x10000) {
      unit(0xd800 + ((code - 0x10000) >> 10));
      unit(0xdc00 + ((code - 0x10000) & 0x3ff));
    } else {
      unit(code);
    }
    i += length;
  }
  return h;
}

// The jute-generated Id.hashCode, spread as ConcurrentHashMap spreads it.
uint32_t spread_hash(const zk::wire::Id& id) {
  uint32_t h = 17;
  h = 37 * h + java_string_hash(id.scheme);
  h = 37 * h + java_string_hash(id.id);
  return (h ^ (h >> 16)) & 0x7fffffff;
}

// A ConcurrentHashMap's default capacity, and the count at which it first
// resizes (3/4 full).
constexpr size_t kInitialBins = 16;
constexpr size_t kFirstResize = kInitialBins - kInitialBins / 4;

// The bin of `id` in a map that has not resized yet.
uint32_t initial_bin(const zk::wire::Id& id) { return spread_hash(id) & (kInitialBins - 1); }

// Iteration order of a ConcurrentHashMap (default capacity 16) after putting
// `added` in turn: bins in index order, each bin in insertion order, with
// the map's resizes (at 3/4 full) splitting bins as its transfer() does.
// (Long bins are not turned into trees here: that takes 8 ids colliding.)
std::vector<zk::wire::Id> concurrent_hash_map_order(const std::vector<zk::wire::Id>& added) {
  using Entry = std::pair<uint32_t, const zk::wire::Id*>;
  std::vector<std::vector<Entry>> table(kInitialBins);
  size_t count = 0;
  for (const zk::wire::Id& id : added) {
    const uint32_t h = spread_hash(id);
    table[h & (table.size() - 1)].push_back({h, &id});
    const size_t n = table.size();
    if (++count < n - n / 4) continue;
    std::vector<std::vector<Entry>> next(2 * n);
    for (size_t i = 0; i < n; ++i) {
      const std::vector<Entry>& bin = table[i];
      if (bin.empty()) continue;
      // The longest tail whose entries all go the same way keeps its order;
      // the entries before it are pushed onto the front of their list.
      size_t last_run = 0;
      for (size_t k = 1; k < bin.size(); ++k) {
        if ((bin[k].first & n) != (bin[last_run].first & n)) last_run = k;
      }
      std::vector<Entry> low;
      std::vector<Entry> high;
      ((bin[last_run].first & n) == 0 ? low : high)
          .assign(bin.begin() + static_cast<std::ptrdiff_t>(last_run), bin.end());
      for (size_t k = 0; k < last_run; ++k) {
        std::vector<Entry>& list = (bin[k].first & n) == 0 ? low : high;
        list.insert(list.begin(), bin[k]);
      }
      next[i] = std::move(low);
      next[i + n] = std::move(high);
    }
    table = std::move(next);
  }
  std::vector<zk::wire::Id> out;
  for (const auto& bin : table) {
    for (const auto& entry : bin) out.push_back(*entry.second);
  }
  return out;
}

}  // namespace

AuthIds::AuthIds(std::initializer_list<zk::wire::Id> ids) {
  for (const auto& id : ids) add(id);
}

void AuthIds::add(const zk::wire::Id& id) {
  if (std::find(added_.begin(), added_.end(), id) != added_.end()) return;
  added_.push_back(id);
  if (added_.size() >= kFirstResize) {
    java_order_ = concurrent_hash_map_order(added_);
    return;
  }
  // Before the map's first resize its order is by bin, then by insertion:
  // the id goes in behind the ids of its bin and those before, without
  // rebuilding the table (a connection's one or two ids, on every write).
  const uint32_t bin = initial_bin(id);
  const auto after =
      std::find_if(java_order_.begin(), java_order_.end(),
                   [bin](const zk::wire::Id& other) { return initial_bin(other) > bin; });
  java_order_.insert(after, id);
}

bool AuthIds::is_super() const {
  return std::any_of(added_.begin(), added_.end(),
                     [](const zk::wire::Id& id) { return id.scheme == kSuperScheme; });
}

}  // namespace zkd::tree
