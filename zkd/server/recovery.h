// SPDX-License-Identifier: Apache-2.0
// Start-up of a durable server: where the files live, the session-password
// key, and rebuilding the state machine from the newest valid snapshot plus
// the txn log after it (docs/design.md, "Storage"). Runs on the main thread before
// the server starts serving; nothing else touches the Database meanwhile.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zkd/server/config.h"
#include "zkd/server/session_credentials.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"
#include "zkd/storage/txn_log.h"
#include "zkd/tree/database.h"

namespace zkd::server {

// Apache's layout: snapshots in <dataDir>/version-2, logs in
// <dataLogDir>/version-2 (dataLogDir defaults to dataDir).
struct StorageLayout {
  std::string snap_dir;
  std::string log_dir;
};
StorageLayout storage_layout(const ServerConfig& config);

// The secret session passwords are derived from: 16 bytes in
// <data_dir>/session.key, beside myid, so that a replica whose version-2 is
// wiped for a resync (as Apache's operators do) keeps it. Created on the
// first start (temporary file, fsync, rename, directory fsync), read on
// every later one; a file of the wrong size is an error, never silently
// replaced (that would invalidate every password). zkd up to 0.1 kept it in
// <snap_dir>/session.key: a key found only there is read and copied beside
// myid (durably, before it is used).
StatusOr<SessionPasswords::Key> load_or_create_session_key(storage::Env& env,
                                                           const std::string& data_dir,
                                                           const std::string& snap_dir);
// Whether either place holds a session.key (an ensemble without one shares a
// key derived for it: replication.h, ensemble_session_key()).
bool session_key_exists(storage::Env& env, const std::string& data_dir,
                        const std::string& snap_dir);

struct Recovered {
  bool from_snapshot = false;
  int64_t snapshot_zxid = 0;
  std::string snapshot_name;
  // /zookeeper/config in the snapshot when a reconfiguration wrote it (the
  // membership the log after the snapshot starts from); empty otherwise.
  std::string snapshot_config;
  std::vector<std::string> skipped_snapshots;  // "snapshot.x: why", newest first
  size_t replayed = 0;                         // log records applied after the snapshot
  int64_t snapshot_ms = 0;                     // reading, checking and loading the snapshot
  int64_t log_ms = 0;                          // applying the log (read alongside the snapshot)
  std::string repaired;                        // torn-tail repair, empty when none
  storage::LogTail tail;                       // where the log writer resumes
};

// Creates both directories, loads the newest valid snapshot into `db` (which
// must be fresh) and applies every logged txn after it, in order. A log that
// is corrupt in the middle, a record that does not decode, a log with a hole
// (a zxid that does not follow the one before it, or the snapshot's, by
// zab::follows) and a snapshot payload the tree refuses are errors whose
// message names the file (and offset, or zxids) and says what to do.
// With `replayed_records`, it is set to the log records applied after the
// snapshot, in zxid order (exactly `Recovered::replayed` of them; what a
// replica hands its protocol core as its log). Left empty on error.
StatusOr<Recovered> recover(storage::Env& env, const StorageLayout& layout, tree::Database& db,
                            std::vector<storage::LogRecord>* replayed_records = nullptr);

// Writes a whole snapshot of `db` at once (start-up of a data dir that has
// none yet, like Apache's initial snapshot.0). Nothing may apply meanwhile.
Status write_snapshot_now(storage::Env& env, const std::string& snap_dir, const tree::Database& db);

}  // namespace zkd::server
