// SPDX-License-Identifier: Apache-2.0
// zkd import: an Apache ZooKeeper 3.5-3.9 dataDir into a zkd one
// (docs/migration.md). Apache's state is rebuilt the way Apache's own start-up
// rebuilds it: the newest snapshot that reads (older ones when newer are
// damaged), then every logged txn after it, in zxid order; Apache's epoch
// files come along. zkd's dataDir then holds one snapshot of that state, its
// epoch files and nothing else; the session key is made at zkd's first start.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "zkd/migrate/fresh_data_dir.h"
#include "zkd/server/config.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"

namespace zkd::migrate {

struct ImportRequest {
  std::string apache_data_dir;  // Apache's dataDir, or its version-2
  std::string apache_log_dir;   // Apache's dataLogDir (or its version-2); "" = apache_data_dir
  // Told what is happening now and then (for a progress line on a terminal).
  std::function<void(const std::string&)> progress = nullptr;
};

// The dataDir written (zxid, counts, epochs, file), and how.
struct ImportSummary : FreshDataDir {
  std::string snapshot;                        // the Apache snapshot the state starts from
  std::vector<std::string> skipped_snapshots;  // "name: why", newer ones that did not read
  std::vector<std::string> logs;               // the log segments read
  size_t txns = 0;                             // txns applied after the snapshot
  std::string torn_tail;                       // a torn last entry left out, or ""
};

// Reads Apache's files and writes the dataDir (and dataLogDir) that `target`
// names; `target` decides the tree's options (extendedTypesEnabled decides
// how TTL owners read). Refuses (kConfig) a target that already holds
// snapshot or log files, and (kCorruption) Apache data that does not read,
// naming the file and offset; nothing is written then.
StatusOr<ImportSummary> import_apache(storage::Env& env, const ImportRequest& request,
                                      const server::ServerConfig& target);

}  // namespace zkd::migrate
