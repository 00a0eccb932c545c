// SPDX-License-Identifier: Apache-2.0
// What the client side records in Apache's metrics (zkd/view/metrics.h) per
// request, watch or reply, kept here so that the request code calls one
// line for each: the read/update split of the latency, the
// *_per_namespace sets and the watches a txn fired. State thread only; no
// allocation (a namespace seen for the first time excepted).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "libzk/wire/protocol.h"
#include "zkd/tree/results.h"
#include "zkd/view/metrics.h"

namespace zkd::server {

// Whether Apache counts `op`'s latency as an update (a request that becomes
// a txn: its Request has a header) rather than a read (updatelatency,
// readlatency).
bool is_update(zk::wire::OpCode op);

// The path a request body starts with (the jute string of create, delete,
// setData, getData, exists, getChildren, ...), or "" when it has none.
std::string_view request_path(std::string_view body);

// A read of `op` answered with `response_body`: read_per_namespace.
void record_read(Metrics& m, zk::wire::OpCode op, std::string_view request_body,
                 size_t response_bytes);
// A client's write of `op`: write_per_namespace, the bytes of data it sets
// (create, setData; 0 for the others), as Apache's DataTree counts them.
void record_write(Metrics& m, zk::wire::OpCode op, std::string_view request_body);

// The watches one applied txn fired, by event and path, into the
// node_*_watch_count summaries (Apache records each event with watchers).
void record_fired_watches(Metrics& m, const std::vector<tree::Notification>& notifications);

}  // namespace zkd::server
