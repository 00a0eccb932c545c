// SPDX-License-Identifier: Apache-2.0
// zkd export: a zkd dataDir's state as an Apache ZooKeeper dataDir that
// Apache 3.5-3.9 starts from (docs/migration.md): one uncompressed
// `version-2/snapshot.<zxid>` of the recovered state (tree and sessions),
// the epoch files, and myid for a replica. zkd's own files are only read
// (start-up's recovery runs on them, as zkd's next start would).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "zkd/server/config.h"
#include "zkd/server/epoch_files.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"

namespace zkd::migrate {

struct ExportSummary {
  std::string written;  // the Apache snapshot file
  int64_t zxid = 0;
  int64_t znodes = 0;  // as mntr counts them
  size_t sessions = 0;
  server::EpochFiles epochs;
};

// Recovers the state `source` names and writes it under `out_dir`
// (`out_dir`/version-2 is created). Refuses (kConfig) when `source` holds no
// zkd data or `out_dir`/version-2 already holds snapshot or log files.
StatusOr<ExportSummary> export_apache(storage::Env& env, const server::ServerConfig& source,
                                      const std::string& out_dir,
                                      const std::function<void(const std::string&)>& progress);

}  // namespace zkd::migrate
