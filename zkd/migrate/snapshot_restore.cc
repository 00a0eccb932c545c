// SPDX-License-Identifier: Apache-2.0
#include "zkd/migrate/snapshot_restore.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "zkd/apache_files/apache_compression.h"
#include "zkd/apache_files/apache_format.h"
#include "zkd/log/log.h"
#include "zkd/migrate/fresh_data_dir.h"
#include "zkd/migrate/snapshot_bytes.h"
#include "zkd/server/database_options.h"
#include "zkd/server/recovery.h"
#include "zkd/tree/database.h"
#include "zkd/tree/znode.h"

namespace zkd::migrate {
namespace {

std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The state's zxid by the rules in the header, and which gave it; kConfig
// for a stated zxid below the tree's.
StatusOr<std::pair<int64_t, std::string>> state_zxid(const RestoreRequest& request, int64_t in_file,
                                                     int64_t in_tree) {
  if (request.zxid) {
    if (*request.zxid < in_tree) {
      return Status::config("--zxid " + net::hex(*request.zxid) + " is below zxid " +
                            net::hex(in_tree) + ", which a node in the snapshot holds");
    }
    return std::pair<int64_t, std::string>(*request.zxid, "stated by --zxid");
  }
  std::pair<int64_t, std::string> found(in_tree, "the newest zxid in the tree");
  const std::string name =
      request.snapshot_file.substr(request.snapshot_file.find_last_of('/') + 1);
  const auto parsed = apache::parse_file_name(name);
  if (in_file != 0) {
    found = {in_file, "the file's last-zxid section"};
  } else if (parsed && parsed->kind == apache::ApacheFileName::Kind::kSnapshot) {
    found = {parsed->zxid, "the file name"};
  }
  if (found.first < in_tree) {
    found = {in_tree, found.second + " " + net::hex(found.first) +
                          ", raised to the newest zxid in the tree"};
  }
  return found;
}

}  // namespace

StatusOr<RestoreSummary> restore_snapshot(storage::Env& env, const RestoreRequest& request,
                                          const server::ServerConfig& target) {
  if (Status s = require_empty_data_dir(env, target, "zkd restore"); !s.ok()) return s;
  auto view = env.view_file(request.snapshot_file);
  if (!view.ok()) return view.status();
  const std::string_view bytes = (*view)->bytes();
  if (bytes.starts_with("zkd")) {  // docs/storage-format.md: zkd's own files
    return Status::corruption(request.snapshot_file +
                              ": offset 0: one of zkd's own files, not an Apache-format snapshot; "
                              "zkd export writes the file to restore from a stopped zkd's data "
                              "(docs/quorum-loss-recovery.md)");
  }
  auto loaded =
      read_snapshot_bytes(bytes, request.snapshot_file, apache::compression_of_content(bytes),
                          target.extended_types_enabled, request.progress);
  if (!loaded.ok()) return loaded.status();
  auto zxid = state_zxid(request, loaded->zxid, tree::newest_zxid(loaded->tree));
  if (!zxid.ok()) return zxid.status();

  loaded->zxid = zxid->first;
  loaded->walked = zxid->first;
  tree::Database db(server::database_options(target, env.clock().wall_ms()));
  db.load(std::move(*loaded));

  const server::StorageLayout layout = server::storage_layout(target);
  if (request.progress) request.progress("writing " + layout.snap_dir);
  // zkd export and Apache keep the epoch files beside the snapshot.
  auto written = write_fresh_data_dir(env, layout, db, directory_of(request.snapshot_file));
  if (!written.ok()) return written.status();
  RestoreSummary summary;
  static_cast<FreshDataDir&>(summary) = std::move(*written);
  summary.zxid_from = zxid->second;
  return summary;
}

}  // namespace zkd::migrate
