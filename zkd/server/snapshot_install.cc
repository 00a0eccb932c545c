// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/snapshot_install.h"

#include <string>

#include "zkd/log/log.h"
#include "zkd/storage/snapshot_file.h"
#include "zkd/storage/txn_log.h"

namespace zkd::server {

namespace {

Status remove_log_segments(storage::Env& env, const StorageLayout& layout) {
  auto segments = storage::list_segments(env, layout.log_dir);
  if (!segments.ok()) return segments.status();
  for (const auto& segment : *segments) {
    if (Status s = env.remove_file(layout.log_dir + "/" + segment.name); !s.ok()) return s;
  }
  return segments->empty() ? Status() : env.sync_dir(layout.log_dir);
}

}  // namespace

std::string staging_dir(const StorageLayout& layout) {
  return layout.snap_dir + "/" + kInstallDirName;
}

Status begin_staging(storage::Env& env, const StorageLayout& layout) {
  const std::string staging = staging_dir(layout);
  // What an earlier, interrupted staging left (a temporary file) goes.
  if (env.file_exists(staging)) {
    auto leftovers = env.list_dir(staging);
    if (!leftovers.ok()) return leftovers.status();
    for (const auto& name : *leftovers) {
      if (Status s = env.remove_file(staging + "/" + name); !s.ok()) return s;
    }
  }
  if (Status s = env.create_dirs(staging); !s.ok()) return s;
  return env.sync_dir(layout.snap_dir);
}

Status stage_snapshot_install(storage::Env& env, const StorageLayout& layout,
                              const tree::Database& db) {
  if (Status s = begin_staging(env, layout); !s.ok()) return s;
  return write_snapshot_now(env, staging_dir(layout), db);
}

Status finish_snapshot_install(storage::Env& env, const StorageLayout& layout, int64_t zxid) {
  if (Status s = storage::remove_snapshots_after(env, layout.snap_dir, zxid - 1); !s.ok()) {
    return s;
  }
  const std::string staging = staging_dir(layout);
  auto staged = storage::list_snapshots(env, staging);
  if (!staged.ok()) return staged.status();
  for (const auto& snapshot : *staged) {
    if (snapshot.zxid != zxid) continue;
    if (Status s =
            env.rename_file(staging + "/" + snapshot.name, layout.snap_dir + "/" + snapshot.name);
        !s.ok()) {
      return s;
    }
    if (Status s = env.sync_dir(layout.snap_dir); !s.ok()) return s;
    return env.sync_dir(staging);
  }
  return Status::error(staging + ": no staged snapshot at zxid " + net::hex(zxid));
}

StatusOr<std::optional<int64_t>> staged_snapshot_install(storage::Env& env,
                                                         const StorageLayout& layout) {
  const std::string staging = staging_dir(layout);
  if (!env.file_exists(staging)) return std::optional<int64_t>();
  auto staged = storage::list_snapshots(env, staging);
  if (!staged.ok()) return staged.status();
  if (staged->empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(staged->back().zxid);
}

Status settle_snapshot_install(storage::Env& env, const StorageLayout& layout) {
  auto staged = staged_snapshot_install(env, layout);
  if (!staged.ok()) return staged.status();
  if (!*staged) return {};
  const int64_t zxid = **staged;
  net::log_info("finishing the install of the leader's snapshot at ", net::hex(zxid),
                ", which a crash interrupted: the txn log goes");
  if (Status s = remove_log_segments(env, layout); !s.ok()) return s;
  return finish_snapshot_install(env, layout, zxid);
}

}  // namespace zkd::server
