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

uint64_t load(const char* p) {
  uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}

// The bytes of `s` (little-endian words), then its length, so that "ab" +
// "c" and "a" + "bc" differ. Long strings go 32 bytes at a time through four
// independent lanes, which the CPU multiplies in parallel.
uint64_t mix_bytes(uint64_t h, std::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  if (n >= 32) {
    uint64_t lanes[4] = {h ^ 0x243f6a8885a308d3ull, h ^ 0x13198a2e03707344ull,
                         h ^ 0xa4093822299f31d0ull, h ^ 0x082efa98ec4e6c89ull};
    for (; n >= 32; p += 32, n -= 32) {
      for (int i = 0; i < 4; ++i) lanes[i] = (lanes[i] ^ load(p + 8 * i)) * kMultiplier;
    }
    for (uint64_t lane : lanes) h = mix(h, lane);
  }
  for (; n >= 8; p += 8, n -= 8) h = mix(h, load(p));
  if (n > 0) {
    uint64_t word = 0;
    std::memcpy(&word, p, n);
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
