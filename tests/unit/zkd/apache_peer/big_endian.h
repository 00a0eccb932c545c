// SPDX-License-Identifier: Apache-2.0
// Big-endian integers as bytes, for tests that spell out Apache's layouts.
#pragma once

#include <cstdint>
#include <string>

namespace zkd::apache::testing {

inline std::string be64(int64_t v) {
  std::string out(8, '\0');
  auto u = static_cast<uint64_t>(v);
  for (int i = 7; i >= 0; --i, u >>= 8) out[i] = static_cast<char>(u & 0xff);
  return out;
}
inline std::string be32(int32_t v) { return be64(v).substr(4); }

}  // namespace zkd::apache::testing
