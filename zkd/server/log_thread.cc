#include "zkd/server/log_thread.h"

#include <chrono>
#include <utility>

namespace zkd::server {

LogThread::LogThread(std::unique_ptr<storage::TxnLogWriter> writer,
                     std::function<void(const LogBatch&)> report)
    : writer_(std::move(writer)), report_(std::move(report)) {
  thread_ = std::thread([this] { run(); });
}

LogThread::~LogThread() { stop(); }

void LogThread::append(int64_t zxid, std::string txn) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(Item{zxid, std::move(txn)});
  }
  wakeup_.notify_one();
}

void LogThread::roll() {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(Item{0, {}});
  }
  wakeup_.notify_one();
}

void LogThread::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wakeup_.notify_one();
  if (thread_.joinable()) thread_.join();
}

storage::Status LogThread::write_batch(std::deque<Item>& batch, int64_t& last_zxid,
                                       uint64_t& txns) {
  for (auto& item : batch) {
    if (item.zxid == 0) {
      if (auto s = writer_->roll(); !s.ok()) return s;
      continue;
    }
    if (auto s = writer_->append(item.zxid, item.txn); !s.ok()) return s;
    last_zxid = item.zxid;
    ++txns;
  }
  return {};
}

void LogThread::run() {
  std::deque<Item> batch;
  bool failed = false;
  for (;;) {
    bool stopping = false;
    {
      std::unique_lock lock(mutex_);
      wakeup_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      stopping = stopping_;
      batch.swap(queue_);
    }
    if (batch.empty() && stopping) break;
    if (failed) {  // nothing more reaches the disk after a failure
      batch.clear();
      if (stopping) break;
      continue;
    }
    LogBatch result;
    int64_t last_zxid = 0;
    result.status = write_batch(batch, last_zxid, result.txns);
    batch.clear();
    if (result.status.ok() && result.txns > 0) {
      auto started = std::chrono::steady_clock::now();
      result.status = writer_->sync();
      result.sync_us = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::steady_clock::now() - started)
                           .count();
    }
    result.durable_zxid = last_zxid;
    if (!result.status.ok()) failed = true;
    // After stop() nobody listens: the txns are on disk and will be replayed.
    if (!stopping && (result.txns > 0 || failed)) report_(result);
  }
}

}  // namespace zkd::server
