// SPDX-License-Identifier: Apache-2.0
// Which paths have a quota (Apache's PathTrie of quota paths in DataTree), and
// the node layout under /zookeeper/quota (Apache's Quotas): a quota on /a/b is
// the node /zookeeper/quota/a/b/zookeeper_limits (its limits, quota_stats.h
// text) next to /zookeeper/quota/a/b/zookeeper_stats (its usage).
//
// Paths are kept as Apache's trie keeps them: split at '/', components that
// are empty or all whitespace (Java's trim) dropped, so "/a//b" and "a/b" name
// the quota "/a/b". A quota on "/" is kept but never matches (Apache keeps no
// quota on the root).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace zkd::tree {

inline constexpr std::string_view kQuotaRoot = "/zookeeper/quota";
inline constexpr std::string_view kQuotaLimitNode = "zookeeper_limits";
inline constexpr std::string_view kQuotaStatNode = "zookeeper_stats";

// "/zookeeper/quota" + path + "/zookeeper_limits" (Quotas.limitPath).
std::string quota_limit_path(std::string_view path);
// "/zookeeper/quota" + path + "/zookeeper_stats" (Quotas.statPath).
std::string quota_stat_path(std::string_view path);

class QuotaPaths {
 public:
  // PathTrie.addPath / deletePath. Apache throws on ""; here it is ignored.
  void add(std::string_view path);
  void remove(std::string_view path);
  void clear() { paths_.clear(); }
  bool empty() const { return paths_.empty(); }

  // DataTree.getMaxPrefixWithQuota: the longest quota path that is `path` or
  // one of its ancestors, component by component (normalised as above);
  // nullopt when there is none.
  std::optional<std::string> root_of(std::string_view path) const;

  // The quota paths, normalised, sorted.
  const std::set<std::string, std::less<>>& paths() const { return paths_; }

 private:
  std::set<std::string, std::less<>> paths_;
};

}  // namespace zkd::tree
