// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/snapshot_service.h"

#include <boost/asio/post.hpp>
#include <chrono>
#include <filesystem>
#include <future>
#include <system_error>
#include <utility>

#include "zkd/log/log.h"

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

SnapshotOptions snapshot_options(const ServerConfig& config, uint64_t seed) {
  SnapshotOptions options;
  options.layout = storage_layout(config);
  options.snap_count = config.snap_count;
  options.seed = seed;
  options.retain_count = config.autopurge_snap_retain_count;
  options.purge_interval_hours = config.autopurge_purge_interval_hours;
  options.compression = config.snapshot_compression;
  options.bytes_per_second = static_cast<uint64_t>(config.snapshot_bytes_per_second);
  return options;
}

// The snapshot in progress. `writer` is used on the snapshot thread only
// (and by stop() after that thread has been joined).
struct SnapshotService::Job {
  int64_t zxid = 0;
  int64_t started_ms = 0;  // steady clock
  uint64_t bytes = 0;      // of the chunks walked so far
  std::unique_ptr<storage::SnapshotWriter> writer;
};

SnapshotService::SnapshotService(asio::io_context& io, storage::Env& env, const tree::Database& db,
                                 SnapshotOptions options, std::function<void()> roll_log,
                                 std::function<void(int64_t, const Status&)> finished)
    : io_(io),
      env_(env),
      db_(db),
      options_(std::move(options)),
      roll_log_(std::move(roll_log)),
      finished_(std::move(finished)),
      schedule_(options_.snap_count, options_.seed),
      purge_timer_(env.new_timer(io)),
      pace_timer_(env.new_timer(io)) {}

SnapshotService::~SnapshotService() { stop(); }

void SnapshotService::open() { thread_ = std::make_unique<asio::thread_pool>(1); }

void SnapshotService::start() { schedule_purge(); }

void SnapshotService::logged(int64_t last_prepared_zxid) {
  if (schedule_.logged() && !job_) start_snapshot(last_prepared_zxid);
}

void SnapshotService::start_snapshot(int64_t last_prepared_zxid) {
  schedule_.started();
  // Txns after this point go to a new segment, so purging can drop the old.
  roll_log_();
  cursor_ = db_.begin_snapshot();
  auto job = std::make_shared<Job>();
  job->zxid = cursor_->zxid();
  job->started_ms = env_.clock().steady_ms();
  job_ = job;
  log_info("taking snapshot ", hex(job->zxid), " (last prepared ", hex(last_prepared_zxid), ")");
  asio::post(*thread_, [this, job] {
    auto writer = storage::SnapshotWriter::create(env_, options_.layout.snap_dir, job->zxid,
                                                  options_.compression);
    Status status = writer.status();
    if (writer.ok()) job->writer = std::move(*writer);
    asio::post(io_, [this, job, status] {
      if (stopped_ || job != job_) return;
      if (!status.ok()) {
        done(job, status, {});
        return;
      }
      step(job);
    });
  });
}

void SnapshotService::step(const std::shared_ptr<Job>& job) {
  std::string chunk = cursor_->next_chunk(kSnapshotNodesPerTurn);
  const bool last = chunk.empty();
  job->bytes += chunk.size();
  asio::post(*thread_, [this, job, chunk = std::move(chunk), last] {
    Status status;
    std::vector<std::string> purged;
    if (!last) {
      status = job->writer->append(chunk);
    } else {
      status = job->writer->finish();
      if (status.ok()) {
        auto removed = storage::purge(env_, options_.layout.snap_dir, options_.layout.log_dir,
                                      options_.retain_count, checks_);
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
      if (stopped_ || job != job_) return;
      if (!status.ok() || last) {
        done(job, status, purged);
      } else {
        pace(job);
      }
    });
  });
}

void SnapshotService::pace(const std::shared_ptr<Job>& job) {
  if (options_.bytes_per_second == 0 || schedule_.due()) {
    step(job);
    return;
  }
  const auto due_ms =
      job->started_ms + static_cast<int64_t>(job->bytes * 1000 / options_.bytes_per_second);
  const int64_t wait_ms = due_ms - env_.clock().steady_ms();
  if (wait_ms <= 0) {
    step(job);
    return;
  }
  pace_timer_->arm(std::chrono::milliseconds(wait_ms), [this, job] {
    if (!stopped_ && job == job_) step(job);
  });
}

void SnapshotService::done(const std::shared_ptr<Job>& job, const Status& status,
                           const std::vector<std::string>& purged) {
  cursor_.reset();
  job_.reset();
  if (!status.ok()) {
    // Not fatal: the log still holds every txn; the next snapshot retries.
    log_error("snapshot ", hex(job->zxid), " failed: ", status.message());
  } else {
    int64_t took = env_.clock().steady_ms() - job->started_ms;
    times_.record(took);
    log_info("snapshot ", storage::snapshot_name(job->zxid), " written in ", took, " ms");
    for (const auto& name : purged) log_info("autopurge removed ", name);
  }
  if (finished_) finished_(job->zxid, status);
}

void SnapshotService::abandon() {
  if (!job_) return;
  std::shared_ptr<Job> job = std::move(job_);
  pace_timer_->cancel();
  cursor_.reset();
  // Its .tmp file goes; on the thread that writes with it, or once that
  // thread is gone.
  const auto give_up_writer = [](Job& job) {
    if (!job.writer) return;
    job.writer->abandon();
    job.writer.reset();
  };
  if (!thread_ || stopped_) {  // no snapshot thread runs
    give_up_writer(*job);
    return;
  }
  // The snapshot thread runs its tasks in order: once this one ran, the
  // chunk or finish it may have been in the middle of is done.
  std::promise<void> given_up;
  asio::post(*thread_, [job, &given_up, give_up_writer] {
    give_up_writer(*job);
    given_up.set_value();
  });
  given_up.get_future().wait();
}

void SnapshotService::stop() {
  if (stopped_) return;
  stopped_ = true;
  purge_timer_->cancel();
  pace_timer_->cancel();
  if (thread_) thread_->join();
  abandon();
}

void SnapshotService::schedule_purge() {
  if (stopped_ || options_.purge_interval_hours <= 0) return;
  purge_timer_->arm(std::chrono::hours(options_.purge_interval_hours), [this] {
    purge_in_background();
    schedule_purge();
  });
}

void SnapshotService::purge_in_background() {
  asio::post(*thread_, [this] {
    auto removed = storage::purge(env_, options_.layout.snap_dir, options_.layout.log_dir,
                                  options_.retain_count, checks_);
    if (!removed.ok()) {
      log_warn("autopurge failed: ", removed.status().message());
      return;
    }
    for (const auto& name : *removed) log_info("autopurge removed ", name);
  });
}

admin::ServerView::SnapshotInfo SnapshotService::last_snapshot() const {
  admin::ServerView::SnapshotInfo info;
  auto names = storage::list_snapshots(env_, options_.layout.snap_dir);
  if (!names.ok() || names->empty()) return info;
  info.zxid = names->front().zxid;
  std::error_code ec;
  auto written = std::filesystem::last_write_time(
      std::filesystem::path(options_.layout.snap_dir) / names->front().name, ec);
  if (!ec) {
    auto since_epoch = std::chrono::file_clock::to_sys(written).time_since_epoch();
    info.timestamp = std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count();
  }
  return info;
}

}  // namespace zkd::server
