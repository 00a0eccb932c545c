// SPDX-License-Identifier: Apache-2.0
#include "libzk/wire/quota_nodes.h"

#include <charconv>
#include <vector>

namespace zk::wire {

std::string quota_limit_path(std::string_view path) {
  return std::string(kQuotaRoot) + std::string(path) + "/" + std::string(kQuotaLimitNode);
}

std::string quota_stat_path(std::string_view path) {
  return std::string(kQuotaRoot) + std::string(path) + "/" + std::string(kQuotaStatNode);
}

namespace {

// Java's String.split: pieces between separators (a separator is a run of
// characters for which `is_sep` holds when `runs`, else one character), with
// trailing empty pieces dropped.
template <typename IsSep>
std::vector<std::string_view> java_split(std::string_view s, IsSep is_sep, bool runs) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < s.size();) {
    if (!is_sep(s[i])) {
      ++i;
      continue;
    }
    out.push_back(s.substr(start, i - start));
    ++i;
    while (runs && i < s.size() && is_sep(s[i])) ++i;
    start = i;
  }
  out.push_back(s.substr(start));
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

// Java's Long.parseLong: an optional sign, then decimal digits, in range.
std::optional<int64_t> java_parse_long(std::string_view s) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (s.empty() || s.front() == '-' || s.front() == '+') return std::nullopt;
  }
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty() || s == "-") return std::nullopt;
  return v;
}

}  // namespace

std::optional<StatsTrack> StatsTrack::parse(std::string_view text) {
  StatsTrack out;
  if (text.empty()) return out;
  for (std::string_view pair : java_split(
           text, [](char c) { return c == ',' || c == ';'; }, true)) {
    std::vector<std::string_view> kv = java_split(
        pair, [](char c) { return c == '='; }, false);
    if (kv.size() < 2) return std::nullopt;
    int64_t value = -1;
    if (!kv[1].empty()) {
      std::optional<int64_t> parsed = java_parse_long(kv[1]);
      if (!parsed) return std::nullopt;
      value = *parsed;
    }
    out.set(kv[0], value);
  }
  return out;
}

int64_t StatsTrack::get(std::string_view key) const {
  auto it = values_.find(key);
  return it == values_.end() ? -1 : it->second;
}

void StatsTrack::set(std::string_view key, int64_t value) {
  values_.insert_or_assign(std::string(key), value);
}

std::string StatsTrack::to_string() const {
  std::string out = std::string(kCount) + "=" + std::to_string(count()) + "," +
                    std::string(kBytes) + "=" + std::to_string(bytes());
  bool first_extra = true;
  for (const auto& [key, value] : values_) {  // sorted, as Apache sorts the other keys
    if (key == kCount || key == kBytes) continue;
    if (first_extra) out += "=";
    first_extra = false;
    out += ";" + key + "=" + std::to_string(value);
  }
  return out;
}

}  // namespace zk::wire
