// SPDX-License-Identifier: Apache-2.0
#include "zkd/migrate/data_files.h"

#include <algorithm>

namespace zkd::migrate {

std::string version2_dir(storage::Env& env, const std::string& dir) {
  const std::string nested = dir + "/version-2";
  return env.file_exists(nested) ? nested : dir;
}

StatusOr<DataFiles> list_data_files(storage::Env& env, const std::string& dir) {
  DataFiles out;
  if (!env.file_exists(dir)) return out;
  auto names = env.list_dir(dir);
  if (!names.ok()) return names.status();
  for (auto& name : *names) {
    auto parsed = apache::parse_file_name(name);
    if (!parsed) continue;
    auto& list = parsed->kind == apache::ApacheFileName::Kind::kSnapshot ? out.snapshots : out.logs;
    list.push_back({std::move(name), *parsed});
  }
  std::sort(out.snapshots.begin(), out.snapshots.end(),
            [](const DataFile& a, const DataFile& b) { return a.parsed.zxid > b.parsed.zxid; });
  std::sort(out.logs.begin(), out.logs.end(),
            [](const DataFile& a, const DataFile& b) { return a.parsed.zxid < b.parsed.zxid; });
  return out;
}

Status require_no_data_files(storage::Env& env, const std::string& dir,
                             const std::string& writing) {
  auto files = list_data_files(env, dir);
  if (!files.ok()) return files.status();
  if (files->empty()) return Status();
  const DataFile& first = files->snapshots.empty() ? files->logs.front() : files->snapshots.front();
  const size_t count = files->snapshots.size() + files->logs.size();
  return Status::config(dir + " already holds " + std::to_string(count) +
                        (count == 1 ? " snapshot or log file (" : " snapshot and log files (") +
                        first.name + "); " + writing +
                        " needs a directory without any: move them aside or choose "
                        "another");
}

}  // namespace zkd::migrate
