// SPDX-License-Identifier: Apache-2.0
#include "zkd/storage/file_names.h"

namespace zkd::storage::file_names {

std::string with_zxid(std::string_view prefix, int64_t zxid, std::string_view suffix) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string name(prefix);
  auto v = static_cast<uint64_t>(zxid);
  for (int shift = 60; shift >= 0; shift -= 4) name.push_back(kDigits[(v >> shift) & 0xfu]);
  name.append(suffix);
  return name;
}

std::optional<int64_t> parse_zxid(std::string_view name, std::string_view prefix,
                                  std::string_view suffix) {
  if (name.size() != prefix.size() + 16 + suffix.size()) return std::nullopt;
  if (!name.starts_with(prefix) || !name.ends_with(suffix)) return std::nullopt;
  uint64_t v = 0;
  for (char c : name.substr(prefix.size(), 16)) {
    uint64_t digit;
    if (c >= '0' && c <= '9') {
      digit = static_cast<uint64_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<uint64_t>(c - 'a' + 10);
    } else {
      return std::nullopt;
    }
    v = (v << 4) | digit;
  }
  return static_cast<int64_t>(v);
}

std::string join(const std::string& dir, std::string_view name) {
  std::string path = dir;
  if (!path.empty() && path.back() != '/') path.push_back('/');
  path.append(name);
  return path;
}

std::string_view base_name(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace zkd::storage::file_names
