// SPDX-License-Identifier: Apache-2.0
// The log thread: appends prepared txns to the txn log and makes them durable
// with group commit. It takes every txn waiting in its queue, appends them
// all, calls sync() once for the batch and reports "durable up to zxid N";
// while that fsync runs, new txns queue up and go into the next batch. So the
// batch size follows the load, and a lone writer waits for exactly one fsync.
//
// Threading: the constructor starts the thread; append(), roll(),
// truncate_after() and stop() are called from one other thread (the state
// thread). `report` runs on the log thread, once per batch, in order; it must
// only hand the result over (e.g. asio::post to the state thread). After a
// failed append, sync or truncation the thread reports the error once and
// takes nothing more: the server must stop. The destructor calls stop().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "zkd/server/server_log.h"
#include "zkd/status/status.h"
#include "zkd/storage/clock.h"
#include "zkd/storage/txn_log.h"

namespace zkd::server {

class LogThread final : public ServerLog {
 public:
  // `clock` times the syncs.
  LogThread(std::unique_ptr<storage::TxnLogWriter> writer, storage::Clock& clock,
            std::function<void(LogBatch)> report);
  ~LogThread() override;
  LogThread(const LogThread&) = delete;
  LogThread& operator=(const LogThread&) = delete;

  // Queues an encoded txn; zxids must increase.
  void append(int64_t zxid, zab::Payload txn) override;
  // The next txn appended after this call starts a new segment.
  void roll() override;
  // Drops every logged txn with a zxid above `zxid` (TxnLogWriter::
  // truncate_after): blocks the caller until every txn queued before this call
  // has been written, the log thread (which owns the writer) has truncated,
  // and the removal is durable; returns the truncation's status. A failure
  // also breaks the thread (reported once, as for a failed sync). Txns
  // appended afterwards must have zxids above `zxid`. No batch reported after
  // the truncation names a durable_zxid above `zxid` unless txns appended
  // after it made that true; a batch that held txns on both sides of the cut
  // reports at most `zxid` (those up to the cut are durable then). After
  // stop() it returns an error without touching the log.
  Status truncate_after(int64_t zxid) override;
  // truncate_after() calls made so far (by the calling thread): a LogBatch
  // with fewer (LogBatch::truncations) describes a log that is gone.
  uint64_t truncations_requested() const override { return truncations_requested_; }
  // Makes everything queued durable (without reporting it), then ends the
  // thread. Idempotent.
  void stop() override;

 private:
  struct Item {
    enum class Kind { kAppend, kRoll, kTruncate };
    Kind kind = Kind::kAppend;
    int64_t zxid = 0;
    zab::Payload txn;  // kAppend
    // kTruncate: the caller waits on it. Null for the others: a promise
    // allocates its shared state and its result, two mallocs per append.
    std::unique_ptr<std::promise<Status>> done;
    int64_t queued_us = 0;    // kAppend: when append() queued it
    uint32_t queue_size = 0;  // kAppend: items waiting then
  };
  void push(Item item);
  // Answers every truncate_after() waiting in `items` with `why`; clears them.
  static void fail_truncations(std::deque<Item>& items, const Status& why);
  void run();
  // Writes the batch's items; `result` gets the txns, their timings and
  // the last zxid written.
  Status write_batch(std::deque<Item>& batch, int64_t& last_zxid, LogBatch& result);

  std::unique_ptr<storage::TxnLogWriter> writer_;  // used by the log thread only
  storage::Clock& clock_;
  std::function<void(LogBatch)> report_;
  uint64_t truncations_ = 0;            // log thread only
  uint64_t truncations_requested_ = 0;  // the calling thread only

  std::mutex mutex_;
  std::condition_variable wakeup_;
  std::deque<Item> queue_;  // guarded by mutex_
  bool stopping_ = false;   // guarded by mutex_
  std::thread thread_;
};

}  // namespace zkd::server
