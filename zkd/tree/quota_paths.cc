// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/quota_paths.h"

#include <algorithm>
#include <vector>

namespace zkd::tree {
namespace {

// A component Java's trim() leaves empty: only characters <= U+0020.
bool blank(std::string_view component) {
  return std::all_of(component.begin(), component.end(),
                     [](char c) { return static_cast<unsigned char>(c) <= 0x20; });
}

// PathTrie.split: the non-blank components of `path`.
std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    if (!blank(part)) out.push_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

std::string normalised(std::string_view path) {
  std::string out;
  for (std::string_view part : components(path)) {
    out += '/';
    out += part;
  }
  return out.empty() ? "/" : out;
}

}  // namespace

void QuotaPaths::add(std::string_view path) {
  if (!path.empty()) paths_.insert(normalised(path));
}

void QuotaPaths::remove(std::string_view path) {
  if (auto it = paths_.find(normalised(path)); it != paths_.end()) paths_.erase(it);
}

std::optional<std::string> QuotaPaths::root_of(std::string_view path) const {
  if (paths_.empty()) return std::nullopt;
  std::optional<std::string> deepest;
  std::string prefix;
  for (std::string_view part : components(path)) {
    prefix += '/';
    prefix += part;
    if (paths_.contains(prefix)) deepest = prefix;
  }
  return deepest;
}

}  // namespace zkd::tree
