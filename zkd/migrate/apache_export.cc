// SPDX-License-Identifier: Apache-2.0
#include "zkd/migrate/apache_export.h"

#include "zkd/apache_files/apache_format.h"
#include "zkd/apache_files/apache_snapshot.h"
#include "zkd/migrate/data_files.h"
#include "zkd/server/database_options.h"
#include "zkd/server/recovery.h"
#include "zkd/storage/durable_file.h"
#include "zkd/tree/database.h"

namespace zkd::migrate {

StatusOr<ExportSummary> export_apache(storage::Env& env, const server::ServerConfig& source,
                                      const std::string& out_dir,
                                      const std::function<void(const std::string&)>& progress) {
  const auto tell = [&](const std::string& what) {
    if (progress) progress(what);
  };
  const server::StorageLayout layout = server::storage_layout(source);
  auto zkd_files = list_data_files(env, layout.snap_dir);
  if (!zkd_files.ok()) return zkd_files.status();
  if (zkd_files->empty()) {
    return Status::config(layout.snap_dir + " holds no zkd snapshot: nothing to export");
  }
  const std::string apache_dir = out_dir + "/version-2";
  if (Status s = require_no_data_files(env, apache_dir, "zkd export"); !s.ok()) return s;

  tell("recovering " + layout.snap_dir);
  tree::Database db(server::database_options(source, env.clock().wall_ms()));
  auto recovered = server::recover(env, layout, db);
  if (!recovered.ok()) return recovered.status();

  ExportSummary summary;
  summary.zxid = db.last_zxid();
  summary.znodes = db.counts().znodes;
  summary.sessions = db.session_table().size();
  const std::string name = apache::snapshot_file_name(summary.zxid);
  const std::string temporary = apache_dir + "/" + name + ".tmp";
  summary.written = apache_dir + "/" + name;
  if (Status s = env.create_dirs(apache_dir); !s.ok()) return s;
  auto file = env.new_writable_file(temporary, 0);
  if (!file.ok()) return file.status();
  Status s = apache::write_apache_snapshot(
      db.tree(), db.session_table(), [&](std::string_view bytes) { return (*file)->append(bytes); },
      [&](int64_t nodes) { tell("writing " + name + ": " + std::to_string(nodes) + " znodes"); });
  if (s.ok()) s = (*file)->sync();
  if (s.ok()) s = (*file)->close();
  if (s.ok()) s = env.rename_file(temporary, summary.written);
  if (s.ok()) s = env.sync_dir(apache_dir);
  if (!s.ok()) {
    (void)env.remove_file(temporary);
    return s;
  }

  auto epochs = server::read_epoch_files(env, layout.snap_dir);
  if (!epochs.ok()) return epochs.status();
  summary.epochs = server::covering(*epochs, summary.zxid);
  if (s = server::write_epoch_files(env, apache_dir, summary.epochs); !s.ok()) return s;
  if (source.replicated()) {
    const std::string my_id = std::to_string(source.my_id) + "\n";
    if (s = storage::write_file_durably(env, out_dir, "myid", my_id); !s.ok()) return s;
  }
  return summary;
}

}  // namespace zkd::migrate
