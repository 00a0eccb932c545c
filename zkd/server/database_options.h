// SPDX-License-Identifier: Apache-2.0
// The replicated state's options as zoo.cfg sets them: every Database the
// server builds (at start, from a leader's snapshot, after a truncation) is
// made with these.
#pragma once

#include <cstdint>

#include "zkd/server/config.h"
#include "zkd/tree/database.h"

namespace zkd::server {

// extendedTypesEnabled and enforceQuota; quota warnings go to the log. In an
// ensemble, /zookeeper/config holds the membership (membership.h), with the
// mtime `now_wall_ms` (when this server read its configuration).
tree::DatabaseOptions database_options(const ServerConfig& config, int64_t now_wall_ms);

}  // namespace zkd::server
