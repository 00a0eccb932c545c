// SPDX-License-Identifier: Apache-2.0
// Creating a znode so that a connection loss never leaves a duplicate.
//
// A create that fails with kConnectionLoss may have been applied. For a
// sequential node a blind retry would make a second node (a second place in a
// lock queue, a second queue item). Protected creation, as Curator does it,
// names the node "_c_<uuid>-<name>": after a connection loss the parent's
// children are searched for that prefix, and a node found is the earlier
// create's. The uuid is fresh for each protected_create call.
//
// The layout is Curator's (CreateBuilder.withProtection), so a Curator client
// and these recipes see each other's nodes under the same names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "libzk/wire/protocol.h"
#include "recipes/retry.h"

namespace zk::recipes {

// "_c_" + a random version-4 UUID in Java's text form + "-".
std::string new_protection_prefix();

// The sequence number at the end of a sequential node's name (the last ten
// digits Apache appends), or nullopt when `name` does not end in ten digits.
std::optional<int64_t> sequence_of(std::string_view name);

// The name without its protection prefix ("_c_<uuid>-"), when it has one.
std::string_view strip_protection(std::string_view name);

// Creates `parent`/_c_<uuid>-`name` (with Apache's sequence suffix when `mode`
// is sequential), creating missing ancestors of `parent` as persistent nodes
// with empty data. Retries on connection loss per `policy`; after a loss, a
// child of `parent` that carries this call's prefix is the node this call
// created, and its path is returned instead of creating another. Returns the
// created path. Errors: those of create (kNodeExists for a non-sequential name
// cannot happen: the uuid is fresh), kConnectionLoss when the budget runs out,
// kSessionExpired.
Result<std::string> protected_create(SyncClient& zk, const std::string& parent,
                                     const std::string& name, const zk::wire::Buffer& data,
                                     zk::wire::CreateMode mode, const RetryPolicy& policy = {});

// Creates `path` and its missing ancestors as persistent nodes with empty
// data; an existing node is success. Retries on connection loss per `policy`.
Status ensure_path(SyncClient& zk, const std::string& path, const RetryPolicy& policy = {});

}  // namespace zk::recipes
