// SPDX-License-Identifier: Apache-2.0
// Apache's txn log segments (FileTxnLog), read for zkd import
// (docs/migration.md, "Apache's files"). Integers big-endian:
//
//   FileHeader   i32 magic "ZKLG", i32 version 2, i64 dbid 0
//   entry*       i64 Adler-32 of the txn bytes, i32 length, the txn bytes
//                (TxnHeader + record + an optional TxnDigest), the byte 'B'
//   zeros        preallocated space; an entry length of 0 ends the segment
//
// The txn bytes are what zkd::tree::read_txn decodes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "zkd/status/status.h"
#include "zkd/tree/txn.h"

namespace zkd::apache {

struct LogSegmentRead {
  size_t entries = 0;
  // Non-empty when the segment ended in a torn entry (cut short by a crash:
  // a bad entry followed only by zeros), which was left out: says where.
  std::string torn_tail;
};

// Calls `visit` with each entry's txn, in file order. An entry that is
// damaged (bad checksum, missing end byte, undecodable txn) is an error that
// names `file` and the entry's offset, unless `last_segment` and nothing but
// zeros follows it: then it is a torn tail (LogSegmentRead::torn_tail), as a
// crash leaves one. An error from `visit` stops the read and is returned.
StatusOr<LogSegmentRead> read_apache_log(std::string_view bytes, const std::string& file,
                                         bool last_segment,
                                         const std::function<Status(const tree::Txn&)>& visit);

}  // namespace zkd::apache
