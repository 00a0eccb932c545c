// SPDX-License-Identifier: Apache-2.0
// The txn log as the whole server uses it: the replica host's ReplicaLog plus
// what the write path and the snapshot service ask of it. zkd's is the
// LogThread (log_thread.h: group commit on a thread of its own); the
// simulator's writes on the state thread when the simulation says, so that a
// seed replays the same run.
//
// Durability comes back as LogBatch reports, in order, through the callback
// the log was made with; they must reach the state thread by asio::post (or
// the simulator's equivalent), never from inside a call below.
#pragma once

#include <cstdint>
#include <vector>

#include "zkd/server/replica_log.h"
#include "zkd/status/status.h"

namespace zkd::server {

// What the log thread saw of one txn, for Apache's sync_processor_* figures.
struct TxnTiming {
  int64_t queue_us = 0;     // from append() to the log thread taking it
  int64_t write_us = 0;     // writing it into the log (before the sync)
  int64_t durable_us = 0;   // from append() to the end of its batch's sync
  uint32_t queue_size = 0;  // txns already waiting when it was appended
};

struct LogBatch {
  int64_t durable_zxid = 0;        // every txn up to here is on disk
  uint64_t txns = 0;               // txns in this batch
  int64_t sync_us = 0;             // time spent in sync()
  int64_t write_us = 0;            // time spent writing the batch before the sync
  std::vector<TxnTiming> timings;  // per txn, in order
  Status status;                   // not ok: the log failed, nothing more will be durable
  // truncate_after() calls carried out before this report. A report still on
  // its way to the state thread when a truncation returns carries a smaller
  // count than the caller has made, and may name txns the truncation removed.
  uint64_t truncations = 0;
};

class ServerLog : public ReplicaLog {
 public:
  // The next txn appended after this call starts a new segment.
  virtual void roll() = 0;
  // truncate_after() calls made so far: a LogBatch with fewer
  // (LogBatch::truncations) describes a log that is gone.
  virtual uint64_t truncations_requested() const = 0;
  // Makes everything queued durable (without reporting it) and takes nothing
  // more. Idempotent.
  virtual void stop() = 0;
};

}  // namespace zkd::server
