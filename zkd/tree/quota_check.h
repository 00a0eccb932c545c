// SPDX-License-Identifier: Apache-2.0
// Quota enforcement at prepare time (Apache's ZooKeeperServer.checkQuota,
// on when zoo.cfg says enforceQuota=true): a create counts +1 node and its
// data length, a setData the change in data length, against the limits of
// the longest quota path covering the node (quota_paths.h).
//
// A limit applies when the operation changes its figure: the hard limit
// (countHardLimit / byteHardLimit) when set (> -1), else the soft one (count
// / bytes). Going over it is logged through the policy's warning sink as
// Apache logs it ("Quota exceeded: /q [current count=3, softCountLimit=2]");
// going over a hard limit also fails the operation with QUOTAEXCEEDED.
// Usage is the stats node's figure plus the effect of txns prepared but not
// yet applied (PendingChanges::quota_pending), which Apache leaves out.
// Nothing is checked without enforcement, nor when the limits or stats node
// is missing or does not parse.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "libzk/wire/protocol.h"
#include "zkd/tree/data_tree.h"
#include "zkd/tree/pending_changes.h"

namespace zkd::tree {

struct QuotaPolicy {
  bool enforce = false;                          // zoo.cfg enforceQuota
  std::function<void(const std::string&)> warn;  // "Quota exceeded" lines; may be empty
};

zk::wire::Error check_quota(const QuotaPolicy& policy, const DataTree& tree,
                            const PendingChanges& pending, std::string_view path,
                            int64_t bytes_diff, int64_t count_diff);

}  // namespace zkd::tree
