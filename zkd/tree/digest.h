// SPDX-License-Identifier: Apache-2.0
// The digest of a data tree: one 64-bit hash per znode, summed (mod 2^64)
// over the znodes, so that a change of one node updates it in O(1): subtract
// the node's old hash, add its new one. Replicas that applied the same txns
// have equal digests; a follower compares its digest with the leader's at
// equal zxids (docs/replication.md, "Tree digest"), as Apache 3.6+ does with
// digest.enabled.
//
// A node's hash covers its path, its data (null and empty differ) and the
// Stat fields Apache's digest covers: czxid, mzxid, pzxid, ctime, mtime,
// version, cversion, aversion, ephemeralOwner. "/zookeeper" and its subtree
// do not count (as in Apache): the quota stats and the config node there are
// kept by each replica, not by txns. The hash is zkd's own (not Apache's
// CRC32) and the same on every build and machine.
#pragma once

#include <cstdint>
#include <string_view>

#include "zkd/tree/znode.h"

namespace zkd::tree {

// Whether the node at `path` counts in the tree's digest.
bool counts_in_digest(std::string_view path);

// The node's share of the digest (0 for a node that does not count).
uint64_t node_digest(const Node& node);

}  // namespace zkd::tree
