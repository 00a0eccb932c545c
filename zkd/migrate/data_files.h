// SPDX-License-Identifier: Apache-2.0
// The data files in a directory, Apache's or zkd's (their names share the
// `snapshot.<hex>` and `log.<hex>` shapes), for the migration commands: what
// to read, and where writing would mix two histories.
#pragma once

#include <string>
#include <vector>

#include "zkd/apache_files/apache_format.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"

namespace zkd::migrate {

// `dir`/version-2 when that exists (a dataDir given), else `dir` (the
// version-2 directory itself given).
std::string version2_dir(storage::Env& env, const std::string& dir);

struct DataFile {
  std::string name;
  apache::ApacheFileName parsed;
};
// The snapshot and log files in `dir`, by kind, each sorted by zxid (newest
// snapshot first, oldest log first). A missing `dir` holds none.
struct DataFiles {
  std::vector<DataFile> snapshots;
  std::vector<DataFile> logs;
  bool empty() const { return snapshots.empty() && logs.empty(); }
};
StatusOr<DataFiles> list_data_files(storage::Env& env, const std::string& dir);

// A config error when `dir` holds any snapshot or log file: `writing` says
// what would have been written there.
Status require_no_data_files(storage::Env& env, const std::string& dir, const std::string& writing);

}  // namespace zkd::migrate
