// SPDX-License-Identifier: Apache-2.0
// Re-registering a reconnected client's watches (setWatches 101 / 105, §9.5
// of docs/wire-protocol.md; Apache's DataTree.setWatches): a watch whose node
// changed since the client's last seen zxid fires at once instead.
#pragma once

#include <vector>

#include "libzk/wire/records.h"
#include "zkd/tree/data_tree.h"
#include "zkd/tree/ids.h"
#include "zkd/tree/results.h"
#include "zkd/tree/watch_manager.h"

namespace zkd::tree {

// Lists in Apache's order (data, exist, child); within a list, in the order
// given. A path in two lists is handled once per list. The persistent lists
// (setWatches2, 105; empty for 101) are re-registered as they are, without
// catch-up events. Returns the catch-up events, to be sent before the reply.
std::vector<Notification> restore_watches(const DataTree& tree, WatchManager& watches,
                                          WatcherId watcher, const zk::wire::SetWatches& w);

}  // namespace zkd::tree
