// SPDX-License-Identifier: Apache-2.0
// A zkd dataDir made from a state read elsewhere (zkd import from Apache's
// dataDir, zkd restore from one snapshot file): one zkd snapshot of the
// state, the epoch files, an empty log directory; the session key is made
// at zkd's first start. zkd starts on it standalone or as a replica (the
// epoch files cover the snapshot's zxid, as Zab's hard state must).
#pragma once

#include <cstdint>
#include <string>

#include "zkd/server/config.h"
#include "zkd/server/epoch_files.h"
#include "zkd/server/recovery.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"
#include "zkd/tree/database.h"

namespace zkd::migrate {

// What a fresh dataDir was written with.
struct FreshDataDir {
  int64_t zxid = 0;    // the state's last zxid
  int64_t znodes = 0;  // as mntr counts them
  size_t sessions = 0;
  server::EpochFiles epochs;  // written beside the snapshot
  std::string written;        // the zkd snapshot file written
};

// Writes `db` as `layout`'s snapshot (named by db.last_zxid()) and the
// epoch files beside it, creating both directories; durable when it returns
// ok. The epoch files are the source's, read from `source_epochs_dir` (a
// missing one reads as 0: a standalone Apache writes none), each raised to
// the epoch of the state's zxid where behind. The caller has checked that
// the directories hold no data.
StatusOr<FreshDataDir> write_fresh_data_dir(storage::Env& env, const server::StorageLayout& layout,
                                            const tree::Database& db,
                                            const std::string& source_epochs_dir);

// A config error unless `config`'s dataDir (and dataLogDir) is empty but for
// what a server's identity and the lock leave there: myid, session.key,
// zkd.lock, and empty version-2 directories. The error names what is there
// and says to move the old dataDir aside; `writing` names the command.
Status require_empty_data_dir(storage::Env& env, const server::ServerConfig& config,
                              const std::string& writing);

}  // namespace zkd::migrate
