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

#include "zkd/migrate/fresh_data_dir.h"
#include "zkd/server/config.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"

namespace zkd::migrate {

struct RestoreRequest {
  std::string snapshot_file;
  std::optional<int64_t> zxid;  // stated by the caller (rule 1 above)
  // Told what is happening now and then (for a progress line on a terminal).
  std::function<void(const std::string&)> progress = nullptr;
};

// The dataDir written (zxid, counts, epochs, file), and which rule gave
// the zxid, in words.
struct RestoreSummary : FreshDataDir {
  std::string zxid_from;
};

// Reads the file and writes the dataDir (and dataLogDir) `target` names;
// `target` decides the tree's options. Refuses (kConfig) a dataDir that
// holds anything but myid, session.key, zkd.lock and empty version-2
// directories, and a stated zxid below the tree's; a file that does not read
// (zkd's own snapshot files included: export them first) is kCorruption
// naming the offset. Nothing is written then.
StatusOr<RestoreSummary> restore_snapshot(storage::Env& env, const RestoreRequest& request,
                                          const server::ServerConfig& target);

}  // namespace zkd::migrate
