// SPDX-License-Identifier: Apache-2.0
// Small znode helpers every recipe uses: naming a child and deleting a node
// through connection loss. Not a public header (protected_create.h holds the
// public ones: ensure_path, protected creates, sequence numbers).
#pragma once

#include <string>

#include "libzk/client/sync_client.h"
#include "recipes/retry.h"

namespace zk::recipes::detail {

// "parent/name" ("/name" under the root).
std::string child_path(const std::string& parent, const std::string& name);

// Deletes `path` (any version), retrying on connection loss per `retry`;
// kNoNode counts as success, so a delete whose reply was lost is not an
// error. Other errors (kNotEmpty, kNoAuth, kSessionExpired, kConnectionLoss
// when the retries run out) are returned.
Status remove_node(SyncClient& zk, const std::string& path, const RetryPolicy& retry);

}  // namespace zk::recipes::detail
