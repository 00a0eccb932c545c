// SPDX-License-Identifier: Apache-2.0
#include "libzk/wire/java_string.h"

#include <cstdint>

namespace zk::wire {
namespace {

bool continuation(uint8_t b) { return (b & 0xc0) == 0x80; }

void put_unit(std::string& out, uint32_t u) {  // one UTF-16 unit, 1 to 3 bytes
  if (u < 0x80) {
    out.push_back(static_cast<char>(u));
  } else if (u < 0x800) {
    out.push_back(static_cast<char>(0xc0 | u >> 6));
    out.push_back(static_cast<char>(0x80 | (u & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xe0 | u >> 12));
    out.push_back(static_cast<char>(0x80 | ((u >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (u & 0x3f)));
  }
}

void put_code_point(std::string& out, uint32_t cp) {
  if (cp < 0x10000) {
    put_unit(out, cp);
    return;
  }
  cp -= 0x10000;
  put_unit(out, 0xd800 | cp >> 10);
  put_unit(out, 0xdc00 | (cp & 0x3ff));
}

constexpr uint32_t kReplacement = 0xfffd;

}  // namespace

std::string java_string_round_trip(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* b = reinterpret_cast<const uint8_t*>(s.data());
  size_t n = s.size();
  size_t i = 0;
  auto malformed = [&](size_t len) {
    put_code_point(out, kReplacement);
    i += len;
  };
  while (i < n) {
    uint8_t b1 = b[i];
    size_t left = n - i;
    if (b1 < 0x80) {
      put_unit(out, b1);
      ++i;
    } else if (b1 >= 0xc2 && b1 <= 0xdf) {
      if (left < 2) return malformed(left), out;
      if (!continuation(b[i + 1])) {
        malformed(1);
        continue;
      }
      put_unit(out, (b1 & 0x1fu) << 6 | (b[i + 1] & 0x3fu));
      i += 2;
    } else if (b1 >= 0xe0 && b1 <= 0xef) {
      bool bad2 =
          left > 1 && ((b1 == 0xe0 && (b[i + 1] & 0xe0) == 0x80) || !continuation(b[i + 1]));
      if (bad2) {
        malformed(1);
        continue;
      }
      if (left < 3) return malformed(left), out;
      if (!continuation(b[i + 2])) {
        malformed(2);
        continue;
      }
      uint32_t c = (b1 & 0x0fu) << 12 | (b[i + 1] & 0x3fu) << 6 | (b[i + 2] & 0x3fu);
      if (c >= 0xd800 && c <= 0xdfff) {
        malformed(3);  // an encoded surrogate is malformed as a whole
        continue;
      }
      put_unit(out, c);
      i += 3;
    } else if (b1 >= 0xf0 && b1 <= 0xf7) {
      auto bad_len = [&]() -> size_t {
        uint8_t b2 = left > 1 ? b[i + 1] : 0x80;
        if (b1 > 0xf4 || (b1 == 0xf0 && (b2 < 0x90 || b2 > 0xbf)) ||
            (b1 == 0xf4 && (b2 & 0xf0) != 0x80) || !continuation(b2)) {
          return 1;
        }
        if (left > 2 && !continuation(b[i + 2])) return 2;
        if (left > 3 && !continuation(b[i + 3])) return 3;
        return 0;
      };
      size_t bad = bad_len();
      if (bad > 0) {
        malformed(bad);
        continue;
      }
      if (left < 4) return malformed(left), out;
      uint32_t cp = (b1 & 0x07u) << 18 | (b[i + 1] & 0x3fu) << 12 | (b[i + 2] & 0x3fu) << 6 |
                    (b[i + 3] & 0x3fu);
      put_code_point(out, cp);
      i += 4;
    } else {
      malformed(1);
    }
  }
  return out;
}

}  // namespace zk::wire
