// SPDX-License-Identifier: Apache-2.0
#include "zkd/migrate/adopt_apache.h"

#include <vector>

#include "zkd/apache_files/apache_compression.h"
#include "zkd/migrate/data_files.h"
#include "zkd/server/recovery.h"

namespace zkd::migrate {
namespace {

// What a snapshot or log file is, by its first bytes: zkd's begin with
// "zkd" (docs/storage-format.md); Apache's with "ZKSN" or "ZKLG", or, for a
// compressed snapshot, gzip's or snappy-java's header. Anything else (an
// empty or torn file a crash left) is neither: recovery judges it.
enum class FileKind { kZkd, kApache, kNeither };

StatusOr<FileKind> file_kind(storage::Env& env, const std::string& path) {
  auto file = env.open_readable_file(path);
  if (!file.ok()) return file.status();
  char head[8];
  auto n = (*file)->read(0, sizeof head, head);
  if (!n.ok()) return n.status();
  const std::string_view bytes(head, *n);
  if (bytes.starts_with("zkd")) return FileKind::kZkd;
  if (bytes.starts_with("ZKSN") || bytes.starts_with("ZKLG") ||
      apache::compression_of_content(bytes) != apache::Compression::kNone) {
    return FileKind::kApache;
  }
  return FileKind::kNeither;
}

struct Census {
  size_t apache = 0;
  size_t zkd = 0;
  std::string first_apache;
};

Status count(storage::Env& env, const std::string& dir, Census& census) {
  auto files = list_data_files(env, dir);
  if (!files.ok()) return files.status();
  for (const auto* list : {&files->snapshots, &files->logs}) {
    for (const DataFile& f : *list) {
      auto kind = file_kind(env, dir + "/" + f.name);
      if (!kind.ok()) return kind.status();
      if (*kind == FileKind::kZkd) {
        ++census.zkd;
      } else if (*kind == FileKind::kApache && census.apache++ == 0) {
        census.first_apache = dir + "/" + f.name;
      }
    }
  }
  return Status();
}

}  // namespace

StatusOr<std::optional<ImportSummary>> adopt_apache_data(
    storage::Env& env, const server::ServerConfig& config,
    const std::function<void(const std::string&)>& progress) {
  const server::StorageLayout layout = server::storage_layout(config);
  std::vector<std::string> dirs{layout.snap_dir};
  if (layout.log_dir != layout.snap_dir) dirs.push_back(layout.log_dir);
  Census census;
  for (const std::string& dir : dirs) {
    if (Status s = count(env, dir, census); !s.ok()) return s;
  }
  if (census.apache == 0) return std::optional<ImportSummary>();
  if (census.zkd > 0) {
    return Status::config(
        "the data directories hold both Apache ZooKeeper's files (" + census.first_apache +
        ") and zkd's: move one kind aside (zkd import and export convert between them)");
  }
  for (const std::string& dir : dirs) {
    if (env.file_exists(dir + kAdoptedSuffix)) {
      return Status::config(dir + " holds Apache ZooKeeper's files and " + dir + kAdoptedSuffix +
                            " exists already: move one of them aside");
    }
  }
  for (const std::string& dir : dirs) {
    if (Status s = env.rename_file(dir, dir + kAdoptedSuffix); !s.ok()) return s;
    if (Status s = env.create_dirs(dir); !s.ok()) return s;
  }
  ImportRequest request;
  request.apache_data_dir = layout.snap_dir + kAdoptedSuffix;
  request.apache_log_dir = dirs.size() > 1 ? layout.log_dir + kAdoptedSuffix : std::string();
  request.progress = progress;
  auto summary = import_apache(env, request, config);
  if (!summary.ok()) return summary.status();
  return std::optional<ImportSummary>(std::move(*summary));
}

}  // namespace zkd::migrate
