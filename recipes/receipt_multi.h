// SPDX-License-Identifier: Apache-2.0
// Applying a conditional transaction exactly once across connection loss.
//
// A write whose reply is lost may or may not have been applied, and reading
// the node again cannot always tell: another client may have written the same
// bytes at the same version (two increments by one of the same value). So the
// transaction also creates an ephemeral "receipt" node with a fresh name
// ("_receipt-<uuid>"); after a connection loss, the receipt's existence (read
// after a sync) says whether the transaction was applied. The receipt is
// deleted once the outcome is known, and goes with the session in any case.
// Used by the counter (setData at a version) and the queue (delete of an item).
#pragma once

#include <string>
#include <vector>

#include "libzk/wire/multi.h"
#include "recipes/retry.h"

namespace zk::recipes {

// Runs multi(`ops` + create of a receipt under `receipt_parent`, which must
// exist once `ops` are applied). Retries on connection loss per `policy`,
// re-sending `ops` only when the receipt shows they were not applied (so
// `ops` should be conditional, e.g. on a version). Returns kOk when applied
// exactly once; the failing operation's error when the server rejected the
// transaction (kBadVersion, kNoNode, kNodeExists, ...: nothing was applied);
// kConnectionLoss when the budget ran out before the outcome was known;
// kSessionExpired (the outcome is then unknown).
Status multi_with_receipt(SyncClient& zk, std::vector<zk::wire::MultiOp> ops,
                          const std::string& receipt_parent, const RetryPolicy& policy = {});

}  // namespace zk::recipes
