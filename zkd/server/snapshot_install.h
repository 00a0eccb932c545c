// SPDX-License-Identifier: Apache-2.0
// Installing the leader's snapshot (a SNAP) without ever holding less than
// before: the replica's log may hold committed txns that count toward a
// quorum, so it is discarded only once the snapshot that replaces it is
// durable, and the old log is never replayed on top of that snapshot.
//   1. stage_snapshot_install(): the snapshot is written whole into
//      <snap_dir>/installingSnapshot/ (temporary file, fsync, rename,
//      directory fsync), where recovery does not look for snapshots;
//   2. the log is emptied;
//   3. finish_snapshot_install(): the snapshots at or above its zxid go (an
//      older one of the same zxid, newer ones that would shadow it), then it
//      moves into <snap_dir>.
// A staged snapshot found at start-up (settle_snapshot_install(), which
// recover() runs first) is an install a crash interrupted after step 1: steps
// 2 and 3 are done then. Without one the old snapshots and log stand: the
// crash came before the snapshot was durable. (Apache's learners keep their
// log under a SNAP and replay what follows the snapshot; ZOOKEEPER-4646 and
// 4925 are about what that replays.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "zkd/server/recovery.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"
#include "zkd/tree/database.h"

namespace zkd::server {

inline constexpr char kInstallDirName[] = "installingSnapshot";

// <snap_dir>/installingSnapshot.
std::string staging_dir(const StorageLayout& layout);
// Step 1 begins: the staging directory made empty (what an interrupted
// staging left goes), durably.
Status begin_staging(storage::Env& env, const StorageLayout& layout);

// Step 1: `db` (the leader's state) written whole into the staging directory.
// (A streamed snapshot is written there as it arrives: snapshot_stream.h.)
Status stage_snapshot_install(storage::Env& env, const StorageLayout& layout,
                              const tree::Database& db);
// Step 3, once the log is emptied.
Status finish_snapshot_install(storage::Env& env, const StorageLayout& layout, int64_t zxid);
// The zxid of the snapshot staged for install, if one is.
StatusOr<std::optional<int64_t>> staged_snapshot_install(storage::Env& env,
                                                         const StorageLayout& layout);
// Finishes an install a crash interrupted after step 1; nothing without a
// staged snapshot. Run before the snapshots and the log are read, with no
// log writer open (recover() does).
Status settle_snapshot_install(storage::Env& env, const StorageLayout& layout);

}  // namespace zkd::server
