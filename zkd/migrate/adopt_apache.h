// SPDX-License-Identifier: Apache-2.0
// zkd started on the dataDir of an Apache ZooKeeper server (a server of an
// Apache ensemble replaced by zkd on its own disk, docs/migration.md): the
// data is taken over at start-up rather than left behind. Apache's
// version-2 directories (dataDir's, and dataLogDir's when apart) are
// renamed version-2.apache, kept untouched (the way back to Apache is to
// move them back), and imported into fresh version-2 directories as `zkd
// import` would. A dataDir holding zkd's files, or none, is left alone; one
// holding both kinds is refused.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "zkd/migrate/apache_import.h"
#include "zkd/server/config.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"

namespace zkd::migrate {

// The suffix the adopted directories get.
inline constexpr const char* kAdoptedSuffix = ".apache";

// What was imported, or nothing when `config`'s directories hold no
// Apache files. kConfig when they hold both kinds, or an earlier adoption's
// version-2.apache is in the way.
StatusOr<std::optional<ImportSummary>> adopt_apache_data(
    storage::Env& env, const server::ServerConfig& config,
    const std::function<void(const std::string&)>& progress);

}  // namespace zkd::migrate
