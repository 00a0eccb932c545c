// SPDX-License-Identifier: Apache-2.0
#include "zkd/migrate/apache_import.h"

#include <optional>
#include <utility>

#include "zkd/apache_files/apache_txn_log.h"
#include "zkd/log/log.h"
#include "zkd/migrate/data_files.h"
#include "zkd/migrate/fresh_data_dir.h"
#include "zkd/migrate/snapshot_bytes.h"
#include "zkd/server/database_options.h"
#include "zkd/server/recovery.h"
#include "zkd/tree/database.h"
#include "zkd/tree/snapshot.h"
#include "zkd/zab/types.h"

namespace zkd::migrate {
namespace {

void tell(const ImportRequest& request, const std::string& what) {
  if (request.progress) request.progress(what);
}

// The newest snapshot in `files` that reads, and its file name; the ones
// that do not read are listed in `skipped`.
struct ReadSnapshot {
  std::string name;
  tree::LoadedSnapshot state;
};
StatusOr<ReadSnapshot> read_newest_snapshot(storage::Env& env, const std::string& dir,
                                            const DataFiles& files, bool extended_types,
                                            const ImportRequest& request,
                                            std::vector<std::string>& skipped) {
  for (const DataFile& file : files.snapshots) {
    const std::string path = dir + "/" + file.name;
    auto view = env.view_file(path);
    if (!view.ok()) return view.status();
    auto loaded = read_snapshot_bytes((*view)->bytes(), path, file.parsed.compression,
                                      extended_types, request.progress);
    if (!loaded.ok()) {
      skipped.push_back(file.name + ": " + loaded.status().message());
      continue;
    }
    // Apache names a snapshot by its zxid, where replaying the log starts.
    loaded->zxid = file.parsed.zxid;
    return ReadSnapshot{file.name, std::move(*loaded)};
  }
  std::string why = files.snapshots.empty() ? dir + " holds no snapshot.<zxid> file"
                                            : "no snapshot in " + dir + " reads";
  for (const auto& s : skipped) why += "; " + s;
  return Status::corruption(why + " (is it Apache's dataDir?)");
}

// The log segments that may hold txns after `zxid`: from the last one that
// starts at or before zxid + 1 on.
std::vector<DataFile> logs_after(const DataFiles& files, int64_t zxid) {
  size_t first = 0;
  for (size_t i = 0; i + 1 < files.logs.size(); ++i) {
    if (files.logs[i + 1].parsed.zxid <= zxid + 1) first = i + 1;
  }
  return {files.logs.begin() + static_cast<std::ptrdiff_t>(first), files.logs.end()};
}

}  // namespace

StatusOr<ImportSummary> import_apache(storage::Env& env, const ImportRequest& request,
                                      const server::ServerConfig& target) {
  const server::StorageLayout layout = server::storage_layout(target);
  for (const auto& dir : {layout.snap_dir, layout.log_dir}) {
    if (Status s = require_no_data_files(env, dir, "zkd import"); !s.ok()) return s;
  }
  const std::string snap_dir = version2_dir(env, request.apache_data_dir);
  const std::string log_dir =
      request.apache_log_dir.empty() ? snap_dir : version2_dir(env, request.apache_log_dir);
  auto snap_files = list_data_files(env, snap_dir);
  if (!snap_files.ok()) return snap_files.status();
  auto log_files = log_dir == snap_dir ? snap_files : list_data_files(env, log_dir);
  if (!log_files.ok()) return log_files.status();

  ImportSummary summary;
  auto snapshot = read_newest_snapshot(env, snap_dir, *snap_files, target.extended_types_enabled,
                                       request, summary.skipped_snapshots);
  if (!snapshot.ok()) return snapshot.status();
  summary.snapshot = snapshot->name;
  const int64_t snapshot_zxid = snapshot->state.zxid;
  tree::Database db(server::database_options(target, env.clock().wall_ms()));
  db.load(std::move(snapshot->state));

  int64_t previous = snapshot_zxid;
  const std::vector<DataFile> logs = logs_after(*log_files, snapshot_zxid);
  for (size_t i = 0; i < logs.size(); ++i) {
    const std::string path = log_dir + "/" + logs[i].name;
    tell(request, "replaying " + logs[i].name);
    auto view = env.view_file(path);
    if (!view.ok()) return view.status();
    auto read = apache::read_apache_log(
        (*view)->bytes(), path, i + 1 == logs.size(), [&](const tree::Txn& txn) -> Status {
          const int64_t zxid = txn.header.zxid;
          if (zxid <= previous) return Status();  // in the snapshot already
          if (!zab::follows(previous, zxid)) {
            return Status::corruption(path + ": the txn log has a hole: after zxid " +
                                      net::hex(previous) + " comes " + net::hex(zxid) +
                                      "; the txns between them are missing");
          }
          db.apply(txn);
          previous = zxid;
          ++summary.txns;
          return Status();
        });
    if (!read.ok()) return read.status();
    summary.logs.push_back(logs[i].name);
    summary.torn_tail = read->torn_tail;
  }

  tell(request, "writing " + layout.snap_dir);
  // Apache's epoch files come along.
  auto written = write_fresh_data_dir(env, layout, db, snap_dir);
  if (!written.ok()) return written.status();
  static_cast<FreshDataDir&>(summary) = std::move(*written);
  return summary;
}

}  // namespace zkd::migrate
