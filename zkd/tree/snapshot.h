// SPDX-License-Identifier: Apache-2.0
// Fuzzy snapshots of the replicated state (data tree + session table): the
// chunked depth-first writer behind Database::begin_snapshot() (snapshot.cc)
// and the reader behind load_snapshot() and visit_snapshot()
// (snapshot_reader.cc).
//
// Payload format (integers big-endian; `string` = i32 length + bytes;
// `buffer` = a string, or length -1 for null data):
//
//   payload = chunk*                      one chunk per next_chunk() call
//   chunk   = u32 body length, u64 checksum of the body (see snapshot.cc), body
//   body    = record*                     each record = u8 tag + fields
//   'H' header: the first record of the payload, and only there
//       i32 magic 0x5a4b5453 ("ZKTS"), i32 format version 2 (1 is read
//       too), i64 zxid,
//       i64 number of nodes when the walk began (a hint for reserving),
//       i32 session count, then per session: i64 id, i32 timeout ms
//   'N' node, in depth-first pre-order (children by name), root "/" first
//       string path, buffer data, acl,
//       i64 czxid, mzxid, pzxid, ctime, mtime,
//       i32 version, cversion (the stored child-creation counter), aversion,
//       i64 ephemeralOwner
//       acl = i32 count, then count x (i32 perms, string scheme, string id);
//             count -2 means "the same ACL as the previous node"
//   'E' end: the last record of the payload; i64 number of 'N' records,
//       i64 walked: the zxid the tree had applied when the walk ended
//       (version 2; a version 1 payload has none, which reads as zxid)
//
// numChildren and dataLength are not stored; the loader rebuilds them, the
// ephemeral, container and TTL indexes and the sizes mntr reports.
// ephemeralOwner is stored as the tree holds it (container_kind.h).
//
// The walk is fuzzy: between next_chunk() calls the tree may change. Across
// calls the cursor keeps only names: per level of the walk, the node's path
// and the name of the child it wrote last; the next call looks the level up
// again (dropping it when the node is gone) and goes on with the next child
// by name, so it holds no pointer into the tree across calls. Each node is
// written as it is when reached, and children created meanwhile may or may
// not be; replaying the log after the header's zxid repairs the rest (see
// Applier: a replayed create that meets its node raises the parent's
// counter, a replayed delete takes any descendants the walk caught). The
// tree so loaded equals the history's at a zxid only from `walked` on.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "zkd/status/status.h"
#include "zkd/tree/data_tree.h"
#include "zkd/tree/database.h"
#include "zkd/tree/session_table.h"

namespace zkd::tree {

// A cursor over `tree` (which must outlive it) named by `zxid`; the session
// table is copied now. `applied` (which must outlive it too): the zxid the
// tree has applied, read when the walk ends for the end record's `walked`;
// null for a tree that does not change (`walked` is then `zxid`).
std::unique_ptr<Database::SnapshotCursor> start_snapshot(const DataTree& tree,
                                                         const SessionTable& sessions, int64_t zxid,
                                                         const int64_t* applied = nullptr);

struct LoadedSnapshot {
  int64_t zxid = 0;
  DataTree tree;
  SessionTable sessions;
  int64_t walked = 0;  // >= zxid: the tree may hold txns up to this one
};

// Decodes a whole payload; a damaged one is a corruption naming what is wrong
// and where. `extended_types`: the tree's (DataTree), which
// decides how node owners are read; the payload stores only the owners.
// A payload of 1 MiB or more is decoded on a second thread while the calling
// one links the nodes into the tree (snapshot_reader.cc); that thread has
// ended when this returns.
StatusOr<LoadedSnapshot> read_snapshot(std::string_view payload, bool extended_types = false);

}  // namespace zkd::tree
