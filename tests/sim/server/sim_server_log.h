// SPDX-License-Identifier: Apache-2.0
// The txn log of a simulated server (zkd/server/server_log.h): the real
// TxnLogWriter on the server's MemoryEnv, written on the state thread as each
// txn is appended and synced only when the simulator calls sync(), which
// reports the batch as the LogThread would. So a crash between an append and
// the next sync() loses that txn, unacknowledged, and a seed replays the
// same run: no thread decides when the disk is written.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "zkd/server/server_log.h"
#include "zkd/storage/txn_log.h"

namespace zk::sim {

class SimServerLog final : public zkd::server::ServerLog {
 public:
  SimServerLog(std::unique_ptr<zkd::storage::TxnLogWriter> writer,
               std::function<void(const zkd::server::LogBatch&)> report)
      : writer_(std::move(writer)), report_(std::move(report)) {}

  void append(int64_t zxid, zkd::zab::Payload txn) override {
    if (!check(writer_->append(zxid, txn))) return;
    last_appended_ = zxid;
    ++unsynced_;
  }
  zkd::Status truncate_after(int64_t zxid) override {
    ++truncations_;
    if (stopped_ || !failure_.ok()) return zkd::Status::error("the log has stopped");
    zkd::Status s = writer_->truncate_after(zxid);
    if (s.ok()) s = writer_->sync();
    if (!check(s)) return s;
    if (last_appended_ > zxid) last_appended_ = zxid;
    return s;
  }
  void roll() override { check(writer_->roll()); }
  uint64_t truncations_requested() const override { return truncations_; }
  void stop() override {
    // What was appended becomes durable, unreported, as the LogThread's
    // stop() makes it; a failure then is the next start's to find.
    if (!stopped_ && failure_.ok()) (void)writer_->sync();
    stopped_ = true;
  }

  // Makes every txn appended so far durable and reports it; false when
  // there was nothing to sync.
  bool sync() {
    if (stopped_ || !failure_.ok() || unsynced_ == 0) return false;
    zkd::server::LogBatch batch;
    batch.status = writer_->sync();
    batch.durable_zxid = last_appended_;
    batch.txns = unsynced_;
    batch.truncations = truncations_;
    unsynced_ = 0;
    if (!batch.status.ok()) failure_ = batch.status;
    report_(batch);
    return true;
  }

 private:
  // A failed write is reported once, as the LogThread reports it; nothing
  // more is taken.
  bool check(const zkd::Status& s) {
    if (s.ok() || !failure_.ok()) return s.ok();
    failure_ = s;
    zkd::server::LogBatch batch;
    batch.status = s;
    batch.truncations = truncations_;
    report_(batch);
    return false;
  }

  std::unique_ptr<zkd::storage::TxnLogWriter> writer_;
  std::function<void(const zkd::server::LogBatch&)> report_;
  int64_t last_appended_ = 0;
  uint64_t unsynced_ = 0;
  uint64_t truncations_ = 0;
  bool stopped_ = false;
  zkd::Status failure_;
};

}  // namespace zk::sim
