// SPDX-License-Identifier: Apache-2.0
#include "zkd/migrate/fresh_data_dir.h"

#include <set>
#include <vector>

#include "zkd/storage/snapshot_file.h"

namespace zkd::migrate {
namespace {

// What may be in a dataDir to fill: the server's identity (myid, and the
// session.key replicas may share: docs/durability.md) and the lock the
// command itself holds (data_dir_lock.h).
const std::set<std::string, std::less<>> kKept = {"myid", "session.key", "zkd.lock"};

// Appends to `found` what `dir` holds beyond `allowed` and empty version-2
// directories. A missing `dir` holds nothing.
Status list_unexpected(storage::Env& env, const std::string& dir,
                       const std::set<std::string, std::less<>>& allowed,
                       std::vector<std::string>& found) {
  if (!env.file_exists(dir)) return Status();
  auto names = env.list_dir(dir);
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    if (allowed.contains(name)) continue;
    if (name == "version-2") {
      auto inside = env.list_dir(dir + "/" + name);
      if (inside.ok() && inside->empty()) continue;
      if (inside.ok()) {
        for (const std::string& file : *inside) found.push_back(dir + "/version-2/" + file);
        continue;
      }
    }
    found.push_back(dir + "/" + name);
  }
  return Status();
}

}  // namespace

StatusOr<FreshDataDir> write_fresh_data_dir(storage::Env& env, const server::StorageLayout& layout,
                                            const tree::Database& db,
                                            const std::string& source_epochs_dir) {
  auto source_epochs = server::read_epoch_files(env, source_epochs_dir);
  if (!source_epochs.ok()) return source_epochs.status();
  FreshDataDir out;
  out.zxid = db.last_zxid();
  out.znodes = db.counts().znodes;
  out.sessions = db.sessions().size();
  out.epochs = server::covering(*source_epochs, out.zxid);
  if (Status s = env.create_dirs(layout.log_dir); !s.ok()) return s;
  if (Status s = server::write_snapshot_now(env, layout.snap_dir, db); !s.ok()) return s;
  if (Status s = server::write_epoch_files(env, layout.snap_dir, out.epochs); !s.ok()) return s;
  out.written = layout.snap_dir + "/" + storage::snapshot_name(out.zxid);
  return out;
}

Status require_empty_data_dir(storage::Env& env, const server::ServerConfig& config,
                              const std::string& writing) {
  std::vector<std::string> found;
  const std::string data_dir = config.data_dir.string();
  if (Status s = list_unexpected(env, data_dir, kKept, found); !s.ok()) return s;
  const std::string log_dir = config.data_log_dir.empty() ? data_dir : config.data_log_dir.string();
  if (log_dir != data_dir) {
    if (Status s = list_unexpected(env, log_dir, {}, found); !s.ok()) return s;
  }
  if (found.empty()) return Status();
  std::string shown;
  constexpr size_t kShown = 3;
  for (size_t i = 0; i < found.size() && i < kShown; ++i) shown += (i ? ", " : "") + found[i];
  if (found.size() > kShown) shown += " and " + std::to_string(found.size() - kShown) + " more";
  const std::string where = log_dir == data_dir ? "dataDir" : "dataDir or dataLogDir";
  return Status::config("zoo.cfg's " + where + " is not empty: it holds " + shown + "; " + writing +
                        " fills an empty dataDir only: move the old dataDir aside (keep myid, "
                        "and session.key if there is one) or name another in zoo.cfg");
}

}  // namespace zkd::migrate
