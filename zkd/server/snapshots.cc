// SPDX-License-Identifier: Apache-2.0
// Server: fuzzy snapshots and autopurge. The state thread walks the
// tree in chunks between applies (one chunk per turn, so reads and writes
// wait at most one chunk); the snapshot thread appends each chunk, then
// finishes the file and purges old files. One chunk is in flight at a time,
// so memory stays bounded whatever the disk's speed.
#include <boost/asio/post.hpp>
#include <chrono>
#include <utility>

#include "zkd/net/log.h"
#include "zkd/server/server.h"
#include "zkd/storage/snapshot_file.h"

namespace zkd::server {

namespace asio = boost::asio;
using net::hex;
using net::log_error;
using net::log_info;
using net::log_warn;

namespace {
// Nodes per chunk: small enough that a turn takes well under a millisecond.
constexpr size_t kSnapshotNodesPerTurn = 2000;
}  // namespace

// The snapshot in progress. `writer` is used on the snapshot thread only
// (and by stop() after that thread has been joined).
struct Server::SnapshotJob {
  int64_t zxid = 0;
  int64_t started_ms = 0;  // steady clock
  std::unique_ptr<storage::SnapshotWriter> writer;
};

void Server::start_snapshot() {
  snapshot_schedule_.started();
  // Txns after this point go to a new segment, so purging can drop the old.
  log_->roll();
  snapshot_cursor_ = db_.begin_snapshot();
  auto job = std::make_shared<SnapshotJob>();
  job->zxid = snapshot_cursor_->zxid();
  job->started_ms = steady_clock_ms();
  snapshot_job_ = job;
  log_info("taking snapshot ", hex(job->zxid), " (last prepared ", hex(last_prepared_zxid_), ")");
  asio::post(*snapshot_thread_, [this, job] {
    auto writer = storage::SnapshotWriter::create(env_, layout_.snap_dir, job->zxid);
    storage::Status status = writer.status();
    if (writer.ok()) job->writer = std::move(*writer);
    asio::post(io_, [this, job, status] {
      if (stopped_ || job != snapshot_job_) return;
      if (!status.ok()) {
        snapshot_done(job, status, {});
        return;
      }
      snapshot_step(job);
    });
  });
}

void Server::snapshot_step(const std::shared_ptr<SnapshotJob>& job) {
  std::string chunk = snapshot_cursor_->next_chunk(kSnapshotNodesPerTurn);
  const bool last = chunk.empty();
  asio::post(*snapshot_thread_, [this, job, chunk = std::move(chunk), last] {
    storage::Status status;
    std::vector<std::string> purged;
    if (!last) {
      status = job->writer->append(chunk);
    } else {
      status = job->writer->finish();
      if (status.ok()) {
        auto removed = storage::purge(env_, layout_.snap_dir, layout_.log_dir,
                                      config_.autopurge_snap_retain_count, snapshot_checks_);
        if (removed.ok()) {
          purged = std::move(*removed);
        } else {
          log_warn("autopurge failed: ", removed.status().message());
        }
      }
    }
    if (!status.ok()) job->writer->abandon();
    if (!status.ok() || last) job->writer.reset();
    asio::post(io_, [this, job, status, last, purged = std::move(purged)] {
      if (stopped_ || job != snapshot_job_) return;
      if (!status.ok() || last) {
        snapshot_done(job, status, purged);
      } else {
        snapshot_step(job);
      }
    });
  });
}

void Server::snapshot_done(const std::shared_ptr<SnapshotJob>& job, const storage::Status& status,
                           const std::vector<std::string>& purged) {
  snapshot_cursor_.reset();
  snapshot_job_.reset();
  if (!status.ok()) {
    // Not fatal: the log still holds every txn; the next snapshot retries.
    log_error("snapshot ", hex(job->zxid), " failed: ", status.message());
    return;
  }
  int64_t took = steady_clock_ms() - job->started_ms;
  snapshot_ms_.record(took);
  log_info("snapshot ", storage::snapshot_name(job->zxid), " written in ", took, " ms");
  for (const auto& name : purged) log_info("autopurge removed ", name);
}

void Server::abandon_snapshot() {
  // Called by stop() after the snapshot thread was joined.
  if (snapshot_job_ && snapshot_job_->writer) {
    snapshot_job_->writer->abandon();
    snapshot_job_->writer.reset();
  }
  snapshot_job_.reset();
  snapshot_cursor_.reset();
}

void Server::schedule_purge() {
  if (stopped_ || config_.autopurge_purge_interval_hours <= 0) return;
  purge_timer_.expires_after(std::chrono::hours(config_.autopurge_purge_interval_hours));
  purge_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled by stop()
    purge_in_background();
    schedule_purge();
  });
}

void Server::purge_in_background() {
  asio::post(*snapshot_thread_, [this] {
    auto removed = storage::purge(env_, layout_.snap_dir, layout_.log_dir,
                                  config_.autopurge_snap_retain_count, snapshot_checks_);
    if (!removed.ok()) {
      log_warn("autopurge failed: ", removed.status().message());
      return;
    }
    for (const auto& name : *removed) log_info("autopurge removed ", name);
  });
}

}  // namespace zkd::server
