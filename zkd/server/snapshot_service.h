// SPDX-License-Identifier: Apache-2.0
// The server's fuzzy snapshots and autopurge (docs/durability.md). The state
// thread walks the tree in chunks between applies (one chunk per turn, so
// reads and writes wait at most one chunk); the snapshot thread (a one-thread
// pool this class owns) appends each chunk, then finishes the file and purges
// old files. One chunk is in flight at a time, so memory stays bounded
// whatever the disk's speed. A failed snapshot is logged and not retried
// until the schedule says one is due again: the log still holds every txn.
//
// What it needs, passed in: the io_context whose thread is the state thread
// (results come back there with asio::post; the purge timer runs there); the
// Env and the directories; the Database to walk (read on the state thread
// only, between the server's applies; it may be replaced by assignment, but
// only while no snapshot runs: abandon() first); `roll_log`, called as a
// snapshot starts so that later txns go to a new log segment; optionally
// `finished`, told when a snapshot ended, ok or not.
//
// What it reports: the log lines ("taking snapshot", "snapshot ... written
// in", "snapshot ... failed", "autopurge removed", "autopurge failed"), the
// time each snapshot took (times(): mntr's zk_*_snapshottime) and the newest
// snapshot on disk (last_snapshot(): the admin `last_snapshot` command).
//
// Purges (storage::purge) keep the newest `retain_count` valid snapshots and
// the log they need; one runs after every snapshot written, and every
// `purge_interval_hours` hours when that is > 0.
//
// Threading: every method is called on the state thread; `roll_log` and
// `finished` run there too. open() starts the snapshot thread, stop() joins
// it; the io_context must not run handlers of this object after it is
// destroyed (the server outlives io_context::run()).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "zkd/server/config.h"
#include "zkd/server/recovery.h"
#include "zkd/server/snapshot_schedule.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"
#include "zkd/storage/snapshot_file.h"
#include "zkd/tree/database.h"
#include "zkd/view/latency_stats.h"
#include "zkd/view/server_view.h"

namespace zkd::server {

struct SnapshotOptions {
  StorageLayout layout;              // snapshots in snap_dir, purges both dirs
  int32_t snap_count = 100000;       // snapCount (SnapshotSchedule)
  uint64_t seed = 0;                 // the schedule's random source
  int32_t retain_count = 3;          // autopurge.snapRetainCount
  int32_t purge_interval_hours = 0;  // autopurge.purgeInterval; 0: only after snapshots
  storage::SnapshotCompression compression = storage::SnapshotCompression::kNone;
  // zkd.snapshotBytesPerSecond: the walk waits between chunks so that a
  // snapshot produces at most this many bytes a second (before
  // compression), until the next snapshot is due (then it finishes at full
  // speed, so that the log to replay after a crash stays as long as without
  // the cap); 0: as fast as the disk takes them.
  uint64_t bytes_per_second = 0;
};
// The options zoo.cfg gives, with a schedule seeded by `seed`.
SnapshotOptions snapshot_options(const ServerConfig& config, uint64_t seed);

class SnapshotService {
 public:
  // `roll_log` is required; `finished` (the snapshot's zxid and how it
  // ended) may be empty.
  SnapshotService(boost::asio::io_context& io, storage::Env& env, const tree::Database& db,
                  SnapshotOptions options, std::function<void()> roll_log,
                  std::function<void(int64_t zxid, const Status&)> finished = {});
  // Calls stop().
  ~SnapshotService();
  SnapshotService(const SnapshotService&) = delete;
  SnapshotService& operator=(const SnapshotService&) = delete;

  // Starts the snapshot thread. Before any snapshot or purge.
  void open();
  // Starts the timed purges (autopurge.purgeInterval > 0).
  void start();
  // One more txn was handed to the log (`last_prepared_zxid`: the last zxid
  // handed, for the log line). Starts a snapshot when the schedule says one
  // is due and none is running; a running one defers it.
  void logged(int64_t last_prepared_zxid);
  // Starts a snapshot of the Database now (restarting the schedule's count).
  // None may be running.
  void start_snapshot(int64_t last_prepared_zxid);
  bool running() const { return job_ != nullptr; }
  // Drops the snapshot in progress, if any: its .tmp file is removed and
  // its results still on their way are ignored. Returns once the snapshot
  // thread is done with it (a chunk or a finish under way when called
  // completes first; a snapshot it finished meanwhile stays on disk), so
  // that a replica may then truncate its log or install a snapshot and
  // remove snapshot files knowing none is being written.
  void abandon();
  // Cancels the purge timer, joins the snapshot thread and abandons the
  // snapshot in progress; results still on their way are ignored.
  // Idempotent. Nothing may be started afterwards.
  void stop();

  // How long each snapshot written took, ms (mntr's zk_*_snapshottime).
  const LatencyStats& times() const { return times_; }
  // The newest snapshot file and its modification time; zxid -1 when none.
  admin::ServerView::SnapshotInfo last_snapshot() const;

 private:
  struct Job;
  void step(const std::shared_ptr<Job>& job);
  // The next step now, or when the snapshot's bytes so far are due at
  // options_.bytes_per_second; now once the next snapshot is due.
  void pace(const std::shared_ptr<Job>& job);
  void done(const std::shared_ptr<Job>& job, const Status& status,
            const std::vector<std::string>& purged);
  void schedule_purge();
  void purge_in_background();

  boost::asio::io_context& io_;
  storage::Env& env_;
  const tree::Database& db_;
  const SnapshotOptions options_;
  std::function<void()> roll_log_;
  std::function<void(int64_t, const Status&)> finished_;
  bool stopped_ = false;
  SnapshotSchedule schedule_;
  std::unique_ptr<tree::Database::SnapshotCursor> cursor_;  // set while a snapshot runs
  std::shared_ptr<Job> job_;                                // likewise
  LatencyStats times_;
  // Which snapshot files purges found valid (snapshot thread only).
  storage::SnapshotChecks checks_;
  std::unique_ptr<storage::Timer> purge_timer_;
  std::unique_ptr<storage::Timer> pace_timer_;  // the next step of a paced snapshot
  // The snapshot thread: writes snapshot chunks and purges. Declared after
  // everything its tasks use; stop() joins it.
  std::unique_ptr<boost::asio::thread_pool> thread_;
};

}  // namespace zkd::server
