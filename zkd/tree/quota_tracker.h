// SPDX-License-Identifier: Apache-2.0
// Keeps each quota's zookeeper_stats node up to date as the tree changes, the
// way Apache's DataTree does (createNode / deleteNode / setData and
// setupQuota after a snapshot load). Every replica does this locally while it
// applies txns; the stats node's data is rewritten in place, with no txn,
// no Stat change (version, mzxid stay; dataLength follows the data), no watch
// event and no change to the tree's approximate data size, as in Apache.
//
// Rules (Apache 3.8):
// - creating <q>/zookeeper_limits under /zookeeper/quota puts the quota on
//   the path <q> stands for (quota_paths.h); creating <q>/zookeeper_stats
//   sets its data to a recount ("count=N,bytes=M") of that path's subtree,
//   the node itself included, whatever data the create carried;
// - deleting a zookeeper_limits node anywhere under /zookeeper removes the
//   quota;
// - every create, delete and setData of a node updates the stats node of the
//   longest quota path covering the node (QuotaPaths::root_of): count by +1 /
//   -1, bytes by the change in data length; other keys in the stats text are
//   kept. A missing stats node, or stats text that does not parse, leaves
//   things as they are (Apache logs or throws there);
// - after a snapshot load every leaf zookeeper_limits node under
//   /zookeeper/quota is found again and its stats node recounted.
//
// Owned by DataTree, which calls these hooks; not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zkd/tree/quota_paths.h"

namespace zkd::tree {

class DataTree;

class QuotaTracker {
 public:
  const QuotaPaths& paths() const { return paths_; }

  // The node at `path` was just created with `data_length` bytes of data.
  void created(DataTree& tree, std::string_view path, int64_t data_length);
  // A delete of `path` and (only in a replay over a fuzzy snapshot) its
  // descendants: removing() notes what goes, before the tree erases it;
  // removed() accounts for it afterwards.
  struct Removal {
    std::vector<std::pair<std::string, int64_t>> nodes;  // path, data length
  };
  Removal removing(const DataTree& tree, std::string_view path) const;
  void removed(DataTree& tree, const Removal& removal);
  // The data of the node at `path` changed length by `bytes_diff`.
  void data_changed(DataTree& tree, std::string_view path, int64_t bytes_diff);
  // Apache's setupQuota: forgets every quota, then finds them in the tree.
  void rebuild(DataTree& tree);

 private:
  // Apache's updateQuotaStat.
  void update_stats(DataTree& tree, std::string_view quota_path, int64_t bytes_diff,
                    int64_t count_diff);
  // Apache's updateQuotaForPath: the stats node of `quota_path` := a recount.
  void recount(DataTree& tree, std::string_view quota_path);
  void find_limits(DataTree& tree, const std::string& path);

  QuotaPaths paths_;
};

}  // namespace zkd::tree
