// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/log_thread.h"

#include <utility>

#include "zkd/failpoint/points.h"

namespace zkd::server {

LogThread::LogThread(std::unique_ptr<storage::TxnLogWriter> writer, storage::Clock& clock,
                     std::function<void(LogBatch)> report)
    : writer_(std::move(writer)), clock_(clock), report_(std::move(report)) {
  thread_ = std::thread([this] { run(); });
}

LogThread::~LogThread() { stop(); }

void LogThread::push(Item item) {
  {
    std::lock_guard lock(mutex_);
    item.queue_size = static_cast<uint32_t>(queue_.size());
    queue_.push_back(std::move(item));
  }
  wakeup_.notify_one();
}

void LogThread::append(int64_t zxid, zab::Payload txn) {
  push(Item{Item::Kind::kAppend, zxid, std::move(txn), {}, clock_.steady_us(), 0});
}

void LogThread::roll() { push(Item{Item::Kind::kRoll, 0, {}, {}}); }

Status LogThread::truncate_after(int64_t zxid) {
  ++truncations_requested_;
  std::future<Status> done;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      return Status::error("txn log truncation after zxid " + std::to_string(zxid) +
                           ": the log thread has stopped");
    }
    Item item{Item::Kind::kTruncate, zxid, {}, std::make_unique<std::promise<Status>>(), 0, 0};
    done = item.done->get_future();
    queue_.push_back(std::move(item));
  }
  wakeup_.notify_one();
  return done.get();
}

void LogThread::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wakeup_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void LogThread::fail_truncations(std::deque<Item>& items, const Status& why) {
  for (auto& item : items) {
    if (item.kind == Item::Kind::kTruncate) item.done->set_value(why);
  }
  items.clear();
}

Status LogThread::write_batch(std::deque<Item>& batch, int64_t& last_zxid, LogBatch& result) {
  const int64_t taken_us = clock_.steady_us();
  result.timings.reserve(batch.size());
  while (!batch.empty()) {
    Item item = std::move(batch.front());
    batch.pop_front();
    switch (item.kind) {
      case Item::Kind::kAppend: {
        if (failpoint::kLogBeforeWrite.fail()) {
          return Status::error(failpoint::kLogBeforeWrite.error_message());
        }
        const int64_t started_us = clock_.steady_us();
        if (auto s = writer_->append(item.zxid, item.txn); !s.ok()) return s;
        last_zxid = item.zxid;
        ++result.txns;
        result.timings.push_back(TxnTiming{.queue_us = taken_us - item.queued_us,
                                           .write_us = clock_.steady_us() - started_us,
                                           .durable_us = 0,
                                           .queue_size = item.queue_size});
        break;
      }
      case Item::Kind::kRoll:
        if (failpoint::kLogRoll.fail()) {
          return Status::error(failpoint::kLogRoll.error_message());
        }
        if (auto s = writer_->roll(); !s.ok()) return s;
        break;
      case Item::Kind::kTruncate: {
        Status s = writer_->truncate_after(item.zxid);
        if (s.ok()) ++truncations_;
        item.done->set_value(s);
        if (!s.ok()) return s;
        // What this batch appended up to the cut is durable now (the
        // truncation synced the cut segment); nothing above it is logged.
        if (last_zxid > item.zxid) last_zxid = item.zxid;
        break;
      }
    }
  }
  return {};
}

void LogThread::run() {
  std::deque<Item> batch;
  Status failure;  // the first failure; nothing reaches the disk after it
  for (;;) {
    bool stopping = false;
    {
      std::unique_lock lock(mutex_);
      wakeup_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      stopping = stopping_;
      batch.swap(queue_);
    }
    if (batch.empty() && stopping) break;
    if (!failure.ok()) {
      fail_truncations(batch, failure);
      if (stopping) break;
      continue;
    }
    LogBatch result;
    int64_t last_zxid = 0;
    const int64_t write_started_us = clock_.steady_us();
    result.status = write_batch(batch, last_zxid, result);
    result.write_us = clock_.steady_us() - write_started_us;
    if (!result.status.ok()) fail_truncations(batch, result.status);  // those not carried out
    if (result.status.ok() && result.txns > 0) {
      const int64_t started_us = clock_.steady_us();
      result.status = failpoint::kLogBeforeSync.fail()
                          ? Status::error(failpoint::kLogBeforeSync.error_message())
                          : writer_->sync();
      if (result.status.ok()) failpoint::kLogSynced.hit();
      const int64_t synced_us = clock_.steady_us();
      result.sync_us = synced_us - started_us;
      // From queueing to now: the txn's wait plus what the batch took since.
      for (auto& t : result.timings) t.durable_us = t.queue_us + (synced_us - write_started_us);
    }
    result.durable_zxid = last_zxid;
    result.truncations = truncations_;
    if (!result.status.ok()) failure = result.status;
    // After stop() nobody listens: the txns are on disk and will be replayed.
    if (!stopping && (result.txns > 0 || !failure.ok())) report_(std::move(result));
  }
}

}  // namespace zkd::server
