// SPDX-License-Identifier: Apache-2.0
// The txn log as the replica host (replica_host.h) uses it: zkd's LogThread,
// or the simulator's log on a MemoryEnv.
#pragma once

#include <cstdint>

#include "zkd/status/status.h"
#include "zkd/zab/types.h"

namespace zkd::server {

class ReplicaLog {
 public:
  virtual ~ReplicaLog() = default;
  // Queues the encoded txn `zxid` (zxids increase). Its durability comes back
  // later, as ReplicaHost::persisted(). The txn's bytes are shared with the
  // core's log entry, not copied.
  virtual void append(int64_t zxid, zab::Payload txn) = 0;
  // Drops every txn above `zxid`, durably, before it returns; after it, no
  // durability report names a dropped txn.
  virtual Status truncate_after(int64_t zxid) = 0;
  // Drops the whole log, durably: a leader's snapshot replaces it.
  virtual Status clear() { return truncate_after(0); }
};

}  // namespace zkd::server
