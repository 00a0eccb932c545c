// SPDX-License-Identifier: Apache-2.0
// Configuration with a ready znode: the ZooKeeper paper's leader-update
// pattern (section 2.4).
//
// Layout under the configuration path P: one child P/<key> per key, holding
// the value as its data, and P/ready, present while the keys form a complete
// configuration. "ready" is therefore no valid key; neither is a name with
// '/' nor one starting with "_receipt-".
//
// apply_config (the writer, e.g. the leader) deletes P/ready, then writes every
// key (setData or create) and deletes keys the new map lacks, all pipelined,
// and creates P/ready once every write succeeded. read_config (a reader) sets a
// watch on P/ready, then reads the keys; if P/ready goes while it reads, it
// starts over. Why a reader never sees a mix of two versions: a writer deletes
// P/ready before it changes any key, and ZooKeeper delivers the watch
// notification for that delete to the reader before the result of any later
// read that could see a changed key (the ordering guarantee). So a read that
// completes with no notification seen read the configuration that P/ready
// announced.
//
// One writer at a time (the paper's leader); two concurrent writers can leave
// a mix with P/ready present. Serialise writers with a lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "recipes/retry.h"

namespace zk::recipes {

using ConfigMap = std::map<std::string, std::string>;

inline constexpr const char* kConfigReadyNode = "ready";

struct ConfigSnapshot {
  ConfigMap values;
  // The czxid of the ready node that announced this configuration: differs
  // for every apply.
  int64_t version = 0;
};

// True when `key` can name a configuration key (see the layout above).
bool valid_config_key(const std::string& key);

// Writes `values` as the configuration at `path` (created with its ancestors
// when missing) and returns the new version. Retries the whole apply on
// connection loss per `policy` (it writes the complete target state, so
// repeating it is harmless). Errors: kBadArguments (an invalid key),
// kNodeExists / kNoNode (another writer changed the keys meanwhile; P/ready
// stays absent), kConnectionLoss, kSessionExpired, kNoAuth.
Result<int64_t> apply_config(SyncClient& zk, const std::string& path, const ConfigMap& values,
                             const RetryPolicy& policy = {});

// Waits until P/ready exists and returns the configuration it announces,
// starting over whenever P/ready changes during the read. Blocks at most
// `timeout` (none: forever); a missing `path` is waited for like a missing
// P/ready. Retries on connection loss per `policy`. Errors: kOperationTimeout,
// kConnectionLoss, kSessionExpired.
Result<ConfigSnapshot> read_config(SyncClient& zk, const std::string& path,
                                   std::optional<std::chrono::milliseconds> timeout = std::nullopt,
                                   const RetryPolicy& policy = {});

}  // namespace zk::recipes
