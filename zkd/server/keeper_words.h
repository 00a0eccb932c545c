// SPDX-License-Identifier: Apache-2.0
// ClickHouse Keeper's four-letter words that Apache lacks, beside ydld
// (Server::yield_leadership), answered in Keeper's words so that its
// operators' scripts read them:
//   rqld  a follower asks its leader to hand leadership over to it:
//         "Sent leadership request to leader." (also on the leader itself,
//         as Keeper), else "Failed to send leadership request to leader.";
//   csnp  a snapshot starts now: the zxid it is taken at (decimal), else
//         "Failed to schedule snapshot creation task." (one is running);
//   lgif  the txn log, one "key\tvalue" line each, Keeper's keys with zxids
//         for log indexes and epochs for terms (docs/zoo-cfg.md has the
//         table): first_log_idx, first_log_term, last_log_idx,
//         last_log_term, last_committed_log_idx, leader_committed_log_idx,
//         target_committed_log_idx, last_snapshot_idx.
// State thread only.
#pragma once

#include <string>
#include <string_view>

#include "zkd/server/recovery.h"
#include "zkd/server/replication.h"
#include "zkd/server/snapshot_service.h"
#include "zkd/server/write_path.h"
#include "zkd/storage/env.h"
#include "zkd/tree/database.h"

namespace zkd::server {

struct KeeperWordParts {
  storage::Env& env;
  const StorageLayout& layout;
  const tree::Database& db;
  SnapshotService& snapshots;
  const WritePath& writes;
  Replication* replication;  // null when standalone
};

// Whether `word` is one of the three.
bool is_keeper_word(std::string_view word);
// The answer to `word` (is_keeper_word), with its newline.
std::string keeper_word(std::string_view word, const KeeperWordParts& parts);

}  // namespace zkd::server
