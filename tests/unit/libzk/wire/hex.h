// SPDX-License-Identifier: Apache-2.0
// Test helpers: bytes <-> hex strings ("00 0a ff"; spaces are ignored).
#pragma once

#include <string>
#include <string_view>

#include "libzk/wire/jute.h"

namespace zk::wire::testing {

inline std::string from_hex(std::string_view hex) {
  std::string out;
  int hi = -1;
  for (char c : hex) {
    int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (v < 0) continue;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<char>(hi << 4 | v));
      hi = -1;
    }
  }
  return out;
}

inline std::string to_hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

}  // namespace zk::wire::testing
