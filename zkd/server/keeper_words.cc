// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/keeper_words.h"

#include <algorithm>

#include "zkd/log/log.h"
#include "zkd/storage/txn_log.h"

namespace zkd::server {
namespace {

std::string request_leadership(const KeeperWordParts& parts) {
  if (parts.replication != nullptr) {
    const zab::Status status = parts.replication->host().status();
    if ((status.role == zab::Role::kLeading && status.serving) ||
        parts.replication->request_leadership()) {
      return "Sent leadership request to leader.\n";
    }
  }
  return "Failed to send leadership request to leader.\n";
}

std::string snapshot_now(const KeeperWordParts& parts) {
  if (parts.snapshots.running()) return "Failed to schedule snapshot creation task.\n";
  const int64_t zxid = parts.db.last_zxid();
  net::log_info("snapshot requested (csnp) at ", net::hex(zxid));
  parts.snapshots.start_snapshot(zxid);
  return std::to_string(zxid) + "\n";
}

std::string log_information(const KeeperWordParts& parts) {
  const int64_t applied = parts.db.last_zxid();
  int64_t last_logged = parts.writes.last_prepared_zxid();
  int64_t leader_committed = applied;
  if (parts.replication != nullptr) {
    const zab::Zab& core = parts.replication->host().core();
    last_logged = core.last_zxid();
    leader_committed = core.committed_zxid();
  }
  int64_t first_logged = 0;
  if (auto segments = storage::list_segments(parts.env, parts.layout.log_dir);
      segments.ok() && !segments->empty()) {
    first_logged = segments->front().first_zxid;
  }
  const int64_t snapshot = std::max<int64_t>(parts.snapshots.last_snapshot().zxid, 0);
  const auto epoch = [](int64_t zxid) { return std::to_string(zxid >> 32); };
  return "first_log_idx\t" + std::to_string(first_logged) + "\n" + "first_log_term\t" +
         epoch(first_logged) + "\n" + "last_log_idx\t" + std::to_string(last_logged) + "\n" +
         "last_log_term\t" + epoch(last_logged) + "\n" + "last_committed_log_idx\t" +
         std::to_string(applied) + "\n" + "leader_committed_log_idx\t" +
         std::to_string(leader_committed) + "\n" + "target_committed_log_idx\t" +
         std::to_string(leader_committed) + "\n" + "last_snapshot_idx\t" +
         std::to_string(snapshot) + "\n";
}

}  // namespace

bool is_keeper_word(std::string_view word) {
  return word == "rqld" || word == "csnp" || word == "lgif";
}

std::string keeper_word(std::string_view word, const KeeperWordParts& parts) {
  if (word == "rqld") return request_leadership(parts);
  if (word == "csnp") return snapshot_now(parts);
  return log_information(parts);
}

}  // namespace zkd::server
