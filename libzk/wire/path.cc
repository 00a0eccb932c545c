// SPDX-License-Identifier: Apache-2.0
#include "libzk/wire/path.h"

#include <cstdint>

namespace zk::wire {
namespace {

// Decodes one UTF-8 sequence at s[i]; returns the code point (U+FFFD for
// malformed input, as Java's decoder does) and advances i.
uint32_t next_code_point(std::string_view s, size_t& i) {
  auto b0 = static_cast<uint8_t>(s[i]);
  size_t n = b0 < 0x80           ? 1
             : (b0 >> 5) == 0x6  ? 2
             : (b0 >> 4) == 0xe  ? 3
             : (b0 >> 3) == 0x1e ? 4
                                 : 0;
  if (n == 0 || i + n > s.size()) {
    ++i;
    return 0xfffd;
  }
  uint32_t cp = n == 1 ? b0 : n == 2 ? (b0 & 0x1f) : n == 3 ? (b0 & 0x0f) : (b0 & 0x07);
  for (size_t k = 1; k < n; ++k) {
    auto b = static_cast<uint8_t>(s[i + k]);
    if ((b & 0xc0) != 0x80) {
      ++i;
      return 0xfffd;
    }
    cp = cp << 6 | (b & 0x3f);
  }
  i += n;
  return cp;
}

// Apache checks UTF-16 units, so every supplementary character is rejected
// (its surrogates fall in U+D800..U+F8FF).
bool forbidden(uint32_t c) {
  return c == 0 || (c > 0 && c <= 0x1f) || (c >= 0x7f && c <= 0x9f) ||
         (c >= 0xd800 && c <= 0xf8ff) || (c >= 0xfff0 && c <= 0xffff) || c > 0xffff;
}

}  // namespace

std::string path_error(std::string_view path, bool sequential) {
  std::string p(path);
  if (sequential) p += '1';
  if (p.empty()) return "Path length must be > 0";
  if (p[0] != '/') return "Path must start with / character";
  if (p.size() == 1) return "";
  if (p.back() == '/') return "Path must not end with / character";
  size_t i = 0;
  size_t segment_start = 0;
  while (i < p.size()) {
    size_t at = i;
    uint32_t c = next_code_point(p, i);
    if (c == 0) return "null character not allowed @" + std::to_string(at);
    if (forbidden(c)) return "invalid character @" + std::to_string(at);
    if (c == '/' && at > 0) {
      std::string_view seg(p.data() + segment_start, at - segment_start);
      if (seg.empty()) return "empty node name specified @" + std::to_string(at);
      if (seg == "." || seg == "..") return "relative paths not allowed @" + std::to_string(at);
    }
    if (c == '/') segment_start = at + 1;
  }
  std::string_view last(p.data() + segment_start, p.size() - segment_start);
  if (last == "." || last == "..") return "relative paths not allowed @" + std::to_string(p.size());
  return "";
}

std::string_view parent_path(std::string_view path) {
  if (path.size() <= 1) return "";
  auto slash = path.rfind('/');
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string_view base_name(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace zk::wire
