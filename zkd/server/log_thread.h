// The log thread: appends prepared txns to the txn log and makes them durable
// with group commit. It takes every txn waiting in its queue, appends them
// all, calls sync() once for the batch and reports "durable up to zxid N";
// while that fsync runs, new txns queue up and go into the next batch. So the
// batch size follows the load, and a lone writer waits for exactly one fsync.
//
// Threading: the constructor starts the thread; append(), roll() and stop()
// are called from one other thread (the state thread). `report` runs on the
// log thread, once per batch, in order; it must only hand the result over
// (e.g. asio::post to the state thread). After a failed append or sync the
// thread reports the error once and takes nothing more: the server must stop.
// The destructor calls stop().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "zkd/storage/status.h"
#include "zkd/storage/txn_log.h"

namespace zkd::server {

struct LogBatch {
  int64_t durable_zxid = 0;  // every txn up to here is on disk
  uint64_t txns = 0;         // txns in this batch
  int64_t sync_us = 0;       // time spent in sync()
  storage::Status status;    // not ok: the log failed, nothing more will be durable
};

class LogThread {
 public:
  LogThread(std::unique_ptr<storage::TxnLogWriter> writer,
            std::function<void(const LogBatch&)> report);
  ~LogThread();
  LogThread(const LogThread&) = delete;
  LogThread& operator=(const LogThread&) = delete;

  // Queues an encoded txn; zxids must increase.
  void append(int64_t zxid, std::string txn);
  // The next txn appended after this call starts a new segment.
  void roll();
  // Makes everything queued durable (without reporting it), then ends the
  // thread. Idempotent.
  void stop();

 private:
  struct Item {
    int64_t zxid = 0;  // 0: roll
    std::string txn;
  };
  void run();
  storage::Status write_batch(std::deque<Item>& batch, int64_t& last_zxid, uint64_t& txns);

  std::unique_ptr<storage::TxnLogWriter> writer_;  // used by the log thread only
  std::function<void(const LogBatch&)> report_;

  std::mutex mutex_;
  std::condition_variable wakeup_;
  std::deque<Item> queue_;  // guarded by mutex_
  bool stopping_ = false;   // guarded by mutex_
  std::thread thread_;
};

}  // namespace zkd::server
