// SPDX-License-Identifier: Apache-2.0
// Fixed-width little-endian integers, the only integer encoding on disk
// (docs/storage-format.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace zkd::storage::coding {

inline void put_u32(std::string& out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xffu);
  out.append(b, 4);
}
inline void put_u64(std::string& out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xffu);
  out.append(b, 8);
}
inline void put_i64(std::string& out, int64_t v) { put_u64(out, static_cast<uint64_t>(v)); }
// Overwrites the 4 bytes at `at` (which `out` holds) with `v`.
inline void set_u32(std::string& out, size_t at, uint32_t v) {
  for (size_t i = 0; i < 4; ++i) out[at + i] = static_cast<char>((v >> (8 * i)) & 0xffu);
}

// `p` must point at 4 (8) readable bytes.
inline uint32_t get_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
inline uint64_t get_u64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
inline int64_t get_i64(const char* p) { return static_cast<int64_t>(get_u64(p)); }

}  // namespace zkd::storage::coding
