// SPDX-License-Identifier: Apache-2.0
#include "zkd/migrate/migrate_commands.h"

#include <unistd.h>

#include <functional>
#include <optional>
#include <variant>

#include "zkd/log/log.h"
#include "zkd/migrate/apache_export.h"
#include "zkd/migrate/apache_import.h"
#include "zkd/migrate/snapshot_restore.h"
#include "zkd/server/config.h"
#include "zkd/server/data_dir_lock.h"

namespace zkd::migrate {
namespace {

constexpr int kExitConfig = 1;
constexpr int kExitData = 3;

// What goes to stderr as one rewritten line while a terminal watches.
class ProgressLine {
 public:
  explicit ProgressLine(std::ostream& err) : err_(err), shown_(::isatty(STDERR_FILENO) == 1) {}
  ~ProgressLine() { clear(); }
  std::function<void(const std::string&)> callback() {
    if (!shown_) return nullptr;
    return [this](const std::string& what) {
      err_ << "\r\033[K" << what << std::flush;
      dirty_ = true;
    };
  }
  void clear() {
    if (dirty_) err_ << "\r\033[K" << std::flush;
    dirty_ = false;
  }

 private:
  std::ostream& err_;
  bool shown_;
  bool dirty_ = false;
};

int exit_status(const Status& s) {
  return s.kind() == Status::Kind::kConfig ? kExitConfig : kExitData;
}

// The configuration with its dataDir locked, or the exit status after
// saying why not.
struct LockedConfig {
  server::ServerConfig config;
  server::DataDirLock lock;
};
std::variant<LockedConfig, int> locked_config(const std::string& config_path, const char* command,
                                              std::ostream& err) {
  auto loaded = server::load_config(config_path);
  for (const auto& w : loaded.warnings) err << "zkd " << command << ": warning: " << w << "\n";
  if (!loaded.config) {
    err << "zkd " << command << ": invalid configuration: " << loaded.error.message() << "\n";
    return kExitConfig;
  }
  auto lock = server::lock_data_dir(loaded.config->data_dir);
  if (!lock.ok()) {
    err << "zkd " << command << ": " << lock.status().message() << "\n";
    return kExitConfig;
  }
  return LockedConfig{std::move(*loaded.config), std::move(*lock)};
}

// The last line of a command that wrote a dataDir.
void print_written(std::ostream& out, const std::string& written,
                   const server::EpochFiles& epochs) {
  out << "wrote " << written << " (acceptedEpoch " << epochs.accepted_epoch << ", currentEpoch "
      << epochs.current_epoch << ")\n";
}

}  // namespace

int run_import(const std::string& config_path, const std::string& apache_data_dir,
               const std::string& apache_log_dir, std::ostream& out, std::ostream& err) {
  auto target = locked_config(config_path, "import", err);
  if (auto* status = std::get_if<int>(&target)) return *status;
  const auto& config = std::get<LockedConfig>(target).config;
  ProgressLine line(err);
  auto summary = import_apache(storage::posix_env(),
                               {apache_data_dir, apache_log_dir, line.callback()}, config);
  line.clear();
  if (!summary.ok()) {
    err << "zkd import: " << summary.status().message() << "\n";
    return exit_status(summary.status());
  }
  for (const auto& skipped : summary->skipped_snapshots) {
    err << "zkd import: warning: skipped " << skipped << "\n";
  }
  if (!summary->torn_tail.empty()) err << "zkd import: warning: " << summary->torn_tail << "\n";
  out << "imported " << summary->znodes << " znodes and " << summary->sessions
      << " sessions at zxid " << net::hex(summary->zxid) << " from " << summary->snapshot;
  if (!summary->logs.empty()) {
    out << " and " << summary->txns << " txns of " << summary->logs.size() << " log file"
        << (summary->logs.size() == 1 ? "" : "s");
  }
  out << "\n";
  print_written(out, summary->written, summary->epochs);
  return 0;
}

int run_export(const std::string& config_path, const std::string& out_dir, std::ostream& out,
               std::ostream& err) {
  auto source = locked_config(config_path, "export", err);
  if (auto* status = std::get_if<int>(&source)) return *status;
  const auto& config = std::get<LockedConfig>(source).config;
  ProgressLine line(err);
  auto summary = export_apache(storage::posix_env(), config, out_dir, line.callback());
  line.clear();
  if (!summary.ok()) {
    err << "zkd export: " << summary.status().message() << "\n";
    return exit_status(summary.status());
  }
  out << "exported " << summary->znodes << " znodes and " << summary->sessions
      << " sessions at zxid " << net::hex(summary->zxid) << "\n";
  print_written(out, summary->written, summary->epochs);
  return 0;
}

int run_restore(const std::string& config_path, const std::string& snapshot_file,
                std::optional<int64_t> zxid, std::ostream& out, std::ostream& err) {
  auto target = locked_config(config_path, "restore", err);
  if (auto* status = std::get_if<int>(&target)) return *status;
  const auto& config = std::get<LockedConfig>(target).config;
  ProgressLine line(err);
  auto summary =
      restore_snapshot(storage::posix_env(), {snapshot_file, zxid, line.callback()}, config);
  line.clear();
  if (!summary.ok()) {
    err << "zkd restore: " << summary.status().message() << "\n";
    return exit_status(summary.status());
  }
  out << "restored " << summary->znodes << " znodes and " << summary->sessions
      << " sessions at zxid " << net::hex(summary->zxid) << " (" << summary->zxid_from << ") from "
      << snapshot_file << "\n";
  print_written(out, summary->written, summary->epochs);
  return 0;
}

}  // namespace zkd::migrate
