// SPDX-License-Identifier: Apache-2.0
// One Apache snapshot file's content into a zkd tree, compressed or not: the
// step zkd import takes for each snapshot it tries and zkd restore for the
// one it is given.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "zkd/apache_files/apache_format.h"
#include "zkd/status/status.h"
#include "zkd/tree/snapshot.h"

namespace zkd::migrate {

// Decompresses `bytes` as `compression` says, then reads them
// (apache::read_apache_snapshot: the result's zxid is the file's 3.9
// last-zxid section, or 0). `path` names the file in errors, which give the
// offset. `progress` hears "decompressing <name>" and "reading <name>: N
// znodes" now and then; it may be null.
StatusOr<tree::LoadedSnapshot> read_snapshot_bytes(
    std::string_view bytes, const std::string& path, apache::Compression compression,
    bool extended_types, const std::function<void(const std::string&)>& progress);

}  // namespace zkd::migrate
