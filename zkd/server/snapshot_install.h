// SPDX-License-Identifier: Apache-2.0
// Installing the leader's snapshot (a SNAP) without ever holding less than
// before: the replica's log may hold committed txns that count toward a
// quorum, so it is discarded only once the snapshot that replaces it is
// durable. A mark file, <snap_dir>/installingSnapshot (the snapshot's zxid in
// hex), says an install is under way:
//   1. begin_snapshot_install(): the mark, durable;
//   2. the snapshot written (write_snapshot_now: temporary file, fsync,
//      rename, directory fsync);
//   3. the log emptied, then finish_snapshot_install(): snapshots above the
//      installed one removed (they would shadow it), then the mark.
// A crash in between is settled by settle_snapshot_install() at the next
// recovery: with the snapshot on disk the install is finished (step 3); without
// it the old snapshots and log stand, the mark goes. Either way recovery never
// replays the old log on top of the leader's snapshot. (Apache's learners keep
// their log under a SNAP and replay what follows the snapshot; ZOOKEEPER-4646
// and 4925 are about what that replays.)
#pragma once

#include <cstdint>

#include "zkd/server/recovery.h"
#include "zkd/storage/env.h"
#include "zkd/storage/status.h"

namespace zkd::server {

inline constexpr char kInstallMarkName[] = "installingSnapshot";

// Step 1 for the snapshot at `zxid`.
storage::Status begin_snapshot_install(storage::Env& env, const StorageLayout& layout,
                                       int64_t zxid);
// Step 3, once the log is emptied: snapshots above `zxid`, then the mark, go.
storage::Status finish_snapshot_install(storage::Env& env, const StorageLayout& layout,
                                        int64_t zxid);
// Finishes or forgets an install a crash interrupted; nothing without a mark.
// Run before the snapshots and the log are read, with no log writer open
// (recover() does).
storage::Status settle_snapshot_install(storage::Env& env, const StorageLayout& layout);

}  // namespace zkd::server
