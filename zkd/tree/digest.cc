// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/digest.h"

#include <cstring>

namespace zkd::tree {

namespace {

constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ull;

// One 64-bit word into the running hash: xor, multiply, fold the high bits.
uint64_t mix(uint64_t h, uint64_t word) {
  h = (h ^ word) * kMultiplier;
  return h ^ (h >> 32);
}

// The bytes of `s`, eight at a time (little-endian; the tail zero-padded),
// then its length, so that "ab" + "c" and "a" + "bc" differ.
uint64_t mix_bytes(uint64_t h, std::string_view s) {
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, s.data() + i, 8);
    h = mix(h, word);
  }
  if (i < s.size()) {
    uint64_t word = 0;
    std::memcpy(&word, s.data() + i, s.size() - i);
    h = mix(h, word);
  }
  return mix(h, s.size());
}

}  // namespace

bool counts_in_digest(std::string_view path) {
  constexpr std::string_view kSystem = "/zookeeper";
  return !(path.starts_with(kSystem) &&
           (path.size() == kSystem.size() || path[kSystem.size()] == '/'));
}

uint64_t node_digest(const Node& node) {
  if (!counts_in_digest(node.path())) return 0;
  uint64_t h = mix_bytes(kMultiplier, node.path());
  const DataView data = node.data();
  h = data ? mix_bytes(h, *data) : mix(h, ~uint64_t{0});  // null differs from empty
  const StoredStat& s = node.stat();
  for (int64_t field : {s.czxid, s.mzxid, s.pzxid, s.ctime, s.mtime, int64_t{s.version},
                        int64_t{s.cversion}, int64_t{s.aversion}, s.ephemeral_owner}) {
    h = mix(h, static_cast<uint64_t>(field));
  }
  return h;
}

}  // namespace zkd::tree
