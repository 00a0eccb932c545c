// SPDX-License-Identifier: Apache-2.0
// What the snapshot writer (snapshot.cc) and reader (snapshot_reader.cc)
// share: the payload's record tags and constants, and the chunk checksum. The
// format itself is described in snapshot.h.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace zkd::tree::snapshot_format {

inline constexpr int32_t kMagic = 0x5a4b5453;  // "ZKTS"
// 2: the end record says up to which zxid the walk saw the tree (1: it
// does not, which reads as the header's zxid).
inline constexpr int32_t kVersion = 2;
inline constexpr int32_t kSameAcl = -2;
inline constexpr char kHeader = 'H';
inline constexpr char kNode = 'N';
inline constexpr char kEnd = 'E';
inline constexpr size_t kChunkHeaderSize = 12;

// A 64-bit checksum of a chunk body: the bytes taken as little-endian 64-bit
// words (the tail zero-padded), each mixed in with a multiply and a shift,
// even and odd words in two lanes that are combined at the end.
// Not cryptographic; it catches garbled bytes, the storage layer's CRC does
// the rest.
inline uint64_t checksum(std::string_view s) {
  auto mix = [](uint64_t h, uint64_t w) {
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 29);
  };
  auto load = [](const char* p, size_t n) {  // n in 1..8; the missing bytes read as zero
    uint64_t w = 0;
    std::memcpy(&w, p, n);  // one load when n is 8
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    return w;
  };
  // Two independent lanes (even and odd words) run in parallel.
  uint64_t h0 = 0x9e3779b97f4a7c15ULL ^ s.size();
  uint64_t h1 = 0xc2b2ae3d27d4eb4fULL;
  size_t i = 0;
  for (; i + 16 <= s.size(); i += 16) {
    h0 = mix(h0, load(s.data() + i, 8));
    h1 = mix(h1, load(s.data() + i + 8, 8));
  }
  for (; i < s.size(); i += 8) h0 = mix(h0, load(s.data() + i, std::min<size_t>(8, s.size() - i)));
  return mix(h0, h1);
}

}  // namespace zkd::tree::snapshot_format
