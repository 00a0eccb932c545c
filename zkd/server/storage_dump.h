// SPDX-License-Identifier: Apache-2.0
// `zkd dump-log FILE` and `zkd dump-snapshot FILE`: print the content of one
// txn log segment or one snapshot file for operators, one line per record
// (text, or one JSON object per line with --json), like Apache's
// TxnLogToolkit and SnapshotFormatter. Read-only; nothing is repaired.
// JSON lines start with "format":1; ids and zxids are hex strings ("0x1a"),
// paths and ACL ids UTF-8 (bytes that are not become U+FFFD), data as hex.
#pragma once

#include <ostream>
#include <string>

#include "zkd/storage/env.h"

namespace zkd::server {

// Exit status: 0 when every record was read, 1 when the file cannot be read
// or holds a bad record (reported on `err` with its offset, after the good
// records before it were printed).
int dump_log(storage::Env& env, const std::string& path, bool json, std::ostream& out,
             std::ostream& err);
// Exit status: 0, or 1 when the file is unreadable, cut short or corrupt.
int dump_snapshot(storage::Env& env, const std::string& path, bool json, std::ostream& out,
                  std::ostream& err);

}  // namespace zkd::server
