// SPDX-License-Identifier: Apache-2.0
// Apache's snapshot format (FileSnap), uncompressed, read into a zkd tree and
// written from one (docs/migration.md, "Apache's files"). Integers
// big-endian, jute encoding:
//
//   FileHeader     i32 magic "ZKSN", i32 version 2, i64 dbid -1
//   sessions       i32 count, then count x (i64 id, i32 timeout ms)
//   ACL map        i32 count, then count x (i64 key, vector<ACL>);
//                  key -1 is never stored and means world:anyone, all perms
//   nodes          pre-order from the root, each a parent before its
//                  children: ustring path (the root as ""), buffer data,
//                  i64 ACL key, StatPersisted (i64 czxid, mzxid, ctime,
//                  mtime, i32 version, cversion, aversion, i64
//                  ephemeralOwner, pzxid); ended by the path "/"
//   seal           i64 Adler-32 of every byte before it, ustring "/"
//   [digest]       i64 zxid, i32 digest version, i64 digest, seal  (3.6+)
//   [last zxid]    i64 last processed zxid, seal                    (3.9+)
//
// The Stat fields are stored ones: cversion is the child-creation counter and
// ephemeralOwner carries the container and TTL encodings (container_kind.h),
// as zkd's tree keeps them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "zkd/status/status.h"
#include "zkd/tree/data_tree.h"
#include "zkd/tree/session_table.h"
#include "zkd/tree/snapshot.h"

namespace zkd::apache {

// Called now and then while nodes are read or written, with the count so far.
using NodeProgress = std::function<void(int64_t nodes)>;

// Reads an uncompressed snapshot. `file` names it in errors, which give the
// offset too. `extended_types`: the zkd tree's (how owners are read). The
// result's zxid is the last processed zxid when the file ends with 3.9's
// section for it, else 0: Apache names a snapshot file by its zxid, so a
// caller with the name may prefer that (import replays the log after it).
StatusOr<tree::LoadedSnapshot> read_apache_snapshot(std::string_view bytes, const std::string& file,
                                                    bool extended_types,
                                                    const NodeProgress& progress);

// Reads the database an Apache leader streams after its SNAP packet (the
// state above, sessions to nodes, with no file header and no seals, then the
// string "BenWasHere"; zkd/apache_peer/snap_stream.h finds where it ends).
// The result's zxid is left 0 (the SNAP packet names it).
StatusOr<tree::LoadedSnapshot> read_apache_snap_stream(std::string_view bytes, bool extended_types);

// What a leader's SNAP stream ends with (zkd/apache_peer/snap_stream.h finds it).
inline constexpr std::string_view kSnapStreamSignature = "BenWasHere";

// Writes `tree` and `sessions` as an uncompressed snapshot through `sink`,
// in pieces of about 1 MiB, without the optional digest (Apache 3.6+ reads
// snapshots without one and computes the tree's digest itself).
using ByteSink = std::function<Status(std::string_view bytes)>;
Status write_apache_snapshot(const tree::DataTree& tree, const tree::SessionTable& sessions,
                             const ByteSink& sink, const NodeProgress& progress);
// The same as a leader's SNAP stream (read_apache_snap_stream reads it).
Status write_apache_snap_stream(const tree::DataTree& tree, const tree::SessionTable& sessions,
                                const ByteSink& sink);

}  // namespace zkd::apache
