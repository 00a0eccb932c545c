// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_restore.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "libzk/json/json_writer.h"
#include "zklab/process/zkd_process.h"
#include "zklab/tool/lab_experiment.h"

namespace zk::lab {

namespace {

// What `zkd restore` said it did: its first line ("restored N znodes and M
// sessions at zxid 0x... (...) from FILE") and that zxid.
struct Restored {
  std::string line;
  std::string zxid;
};

// `zkd restore -c config file`; the error (its exit status and output) or
// empty, with what it restored in `restored`.
std::string zkd_restore(const LabContext& ctx, const std::filesystem::path& config,
                        const std::filesystem::path& file, Restored& restored) {
  const RunResult run =
      run_zkd(ctx.zkd, {"restore", "-c", config.string(), file.string()}, ctx.deadline);
  if (run.status == -1) return "zkd restore did not end in time";
  if (run.status != 0) {
    return "zkd restore failed (" +
           (WIFEXITED(run.status) ? "exit status " + std::to_string(WEXITSTATUS(run.status))
                                  : "wait status " + std::to_string(run.status)) +
           "): " + run.output;
  }
  restored.line = run.output.substr(0, run.output.find('\n'));
  static const std::regex kZxid("at zxid (0x[0-9a-fA-F]+)");
  std::smatch m;
  if (std::regex_search(restored.line, m, kZxid)) restored.zxid = m[1].str();
  return {};
}

// FILE restored into a throw-away dataDir in the lab (<lab>/.restore-check,
// removed after): what `zkd restore` makes of it, before any node stops.
std::string check_file(const LabContext& ctx, const std::filesystem::path& file,
                       Restored& restored) {
  const auto dir = ctx.dir / ".restore-check";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir / "data", ec);
  {
    std::ofstream cfg(dir / "zoo.cfg", std::ios::trunc);
    cfg << "dataDir=" << (dir / "data").string() << "\nclientPort=2181\n";  // never bound
    if (ec || !cfg) return "cannot write " + (dir / "zoo.cfg").string();
  }
  std::string error = zkd_restore(ctx, dir / "zoo.cfg", file, restored);
  std::filesystem::remove_all(dir, ec);
  return error;
}

// The UTC time now as 20260102T030405Z: the name of the data set aside.
std::string utc_stamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  std::ostringstream out;
  out << std::put_time(&utc, "%Y%m%dT%H%M%SZ");
  return out.str();
}

// Moves node's dataDir to `aside`, gives it a new one with the old myid and
// session.key, and restores FILE into it; empty or why not.
std::string restore_node(const LabContext& ctx, const LabNode& node,
                         const std::filesystem::path& aside, const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::rename(node.data_dir(), aside, ec);
  if (ec) return "cannot move " + node.data_dir().string() + " aside: " + ec.message();
  std::filesystem::create_directories(node.data_dir(), ec);
  if (ec) return "cannot create " + node.data_dir().string() + ": " + ec.message();
  for (const char* kept : {"myid", "session.key"}) {
    if (!std::filesystem::exists(aside / kept)) continue;
    std::filesystem::copy_file(aside / kept, node.data_dir() / kept, ec);
    if (ec) return "cannot copy " + (aside / kept).string() + ": " + ec.message();
  }
  Restored restored;
  return zkd_restore(ctx, node.config(), file, restored);
}

}  // namespace

LabExit lab_restore(const LabContext& ctx, const RestoreOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  for (const auto& node : *nodes) {
    if (node.kind != Flavour::kZkd) {
      ctx.err << "zklab: restore: node " << node.id
              << " runs Apache ZooKeeper; zkd restore writes zkd's dataDir (migrate the lab "
                 "with `zklab migrate --to zkd` first)\n";
      return LabExit::kError;
    }
  }
  if (::access(ctx.zkd.c_str(), X_OK) != 0) {
    ctx.err << "zklab: no zkd executable at '" << ctx.zkd << "' (use --zkd or $ZKLAB_ZKD)\n";
    return LabExit::kError;
  }
  const auto file = std::filesystem::absolute(options.file);
  Restored restored;
  if (auto error = check_file(ctx, file, restored); !error.empty()) {
    ctx.err << "zklab: restore: " << file.string()
            << " does not restore (nothing changed): " << error;
    if (!error.ends_with('\n')) ctx.err << "\n";
    return LabExit::kError;
  }

  QuietContext quiet(ctx);
  if (lab_down(quiet.ctx, false) != LabExit::kOk) {
    ctx.err << "zklab: restore: the lab did not stop:\n" << quiet.err.str();
    return LabExit::kError;
  }
  const std::string aside_name = "data.before-restore-" + utc_stamp();
  for (const auto& node : *nodes) {
    if (auto error = restore_node(ctx, node, node.dir / aside_name, file); !error.empty()) {
      ctx.err << "zklab: restore: node " << node.id << ": " << error
              << "\nzklab: restore: the lab is down; each node's data before the restore is in "
                 "n<id>/"
              << aside_name << "\n";
      return LabExit::kError;
    }
  }
  if (lab_up(quiet.ctx, LabLayout{}) != LabExit::kOk) {
    ctx.err << "zklab: restore: the restored lab did not come up:\n"
            << quiet.err.str() << "zklab: restore: each node's data before the restore is in n<id>/"
            << aside_name << "\n";
    return LabExit::kError;
  }
  const auto taken = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  if (options.json) {
    json::JsonWriter w;
    w.begin_object().key("file").string(file.string()).key("last_zxid").string(restored.zxid);
    w.key("nodes").number(static_cast<int64_t>(nodes->size()));
    w.key("before_restore").string(aside_name).key("milliseconds").number(taken.count());
    w.end_object();
    ctx.out << w.str() << "\n";
  } else {
    ctx.out << restored.line << "\n"
            << "restored on " << nodes->size() << " node(s); the lab serves again after "
            << std::fixed << std::setprecision(1) << taken.count() / 1000.0 << " s\n"
            << "each node's data before the restore: n<id>/" << aside_name << "\n";
  }
  return LabExit::kOk;
}

}  // namespace zk::lab
