// SPDX-License-Identifier: Apache-2.0
// Which paths have a quota (Apache's PathTrie of quota paths in DataTree). The
// node layout under /zookeeper/quota and its StatsTrack text are the
// protocol's (libzk/wire/quota_nodes.h); they are named here for the tree.
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

#include "libzk/wire/quota_nodes.h"

namespace zkd::tree {

using zk::wire::kQuotaLimitNode;
using zk::wire::kQuotaRoot;
using zk::wire::kQuotaStatNode;
using zk::wire::quota_limit_path;
using zk::wire::quota_stat_path;
using zk::wire::StatsTrack;

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
