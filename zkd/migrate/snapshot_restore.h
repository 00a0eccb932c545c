// SPDX-License-Identifier: Apache-2.0
// zkd restore: an empty dataDir filled from one Apache-format snapshot file
// (docs/quorum-loss-recovery.md): what `zkd export` writes as
// version-2/snapshot.<zxid>, what Apache 3.9 streams from
// /commands/snapshot?streaming=true, or any Apache snapshot file, plain, gz
// or snappy (told apart by the content's first bytes). Restoring one file on
// every member of an ensemble starts them all from the identical state,
// Apache's "all members restore using the same snapshot".
//
// The state's zxid, first rule that applies:
//   1. the zxid the caller states (`zkd restore --zxid HEX`);
//   2. the last processed zxid the file ends with (Apache 3.9+);
//   3. the file's name, when it is snapshot.<hex>[.gz|.snappy];
//   4. the newest czxid, mzxid or pzxid in the tree.
// Never below the newest zxid in the tree: a snapshot Apache wrote while
// writes went on (fuzzy) may hold nodes newer than its name, and the zxid
// then rises to theirs; a stated zxid below it is refused.
// The epoch files: those beside the snapshot file (zkd export and Apache
// write them there), raised to cover the zxid; none there reads as 0, so the
// zxid's own epoch.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "zkd/server/config.h"
#include "zkd/server/epoch_files.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"

namespace zkd::migrate {

struct RestoreRequest {
  std::string snapshot_file;
  std::optional<int64_t> zxid;  // stated by the caller (rule 1 above)
  // Told what is happening now and then (for a progress line on a terminal).
  std::function<void(const std::string&)> progress = nullptr;
};

struct RestoreSummary {
  int64_t zxid = 0;
  std::string zxid_from;  // which rule gave it, in words
  int64_t znodes = 0;     // as mntr counts them
  size_t sessions = 0;
  server::EpochFiles epochs;  // written into zkd's dataDir
  std::string written;        // the zkd snapshot file written
};

// Reads the file and writes the dataDir (and dataLogDir) `target` names;
// `target` decides the tree's options. Refuses (kConfig) a dataDir that
// holds anything but myid, session.key, zkd.lock and empty version-2
// directories, and a stated zxid below the tree's; a file that does not read
// is kCorruption naming the offset. Nothing is written then.
StatusOr<RestoreSummary> restore_snapshot(storage::Env& env, const RestoreRequest& request,
                                          const server::ServerConfig& target);

}  // namespace zkd::migrate
