// The configuration of one zkd server, read from Apache's zoo.cfg (§13 of the
// wire reference). The keys that matter to a standalone server act (storage
// and purge keys included); ensemble keys are read, checked and stored for
// the issues that will use them. Unknown keys produce a warning, never an
// error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zkd::server {

struct ServerConfig {
  std::filesystem::path source;  // the file it was read from ("" when parsed from text)

  int32_t tick_time_ms = 3000;
  std::filesystem::path data_dir;      // required
  std::filesystem::path data_log_dir;  // = data_dir when absent
  uint16_t client_port = 0;            // required
  std::string client_port_address;     // "" = every address
  int32_t max_client_cnxns = 60;       // per client IP; 0 = unlimited
  int32_t min_session_timeout_ms = 0;  // 2 x tickTime when absent
  int32_t max_session_timeout_ms = 0;  // 20 x tickTime when absent
  std::string four_letter_whitelist = "srvr";
  bool reconfig_enabled = false;

  // Storage. Unlike Apache, zkd purges after every snapshot by default,
  // keeping autopurge.snapRetainCount snapshots (and the logs they need);
  // autopurge.purgeInterval > 0 also purges every that many hours.
  int32_t autopurge_snap_retain_count = 3;     // >= 3, as Apache forces
  int32_t autopurge_purge_interval_hours = 0;  // 0: only after snapshots
  int32_t snap_count = 100000;                 // >= 2, as Apache forces
  int64_t pre_alloc_size_kb = 65536;           // txn log preallocation step, KiB (> 0)
  bool force_sync = true;                      // forceSync=no: never fsync the log (UNSAFE)

  // Stored, not acted on yet.
  std::optional<int32_t> init_limit;
  std::optional<int32_t> sync_limit;
  std::map<int64_t, std::string> servers;  // server.N -> its value, verbatim
  int32_t global_outstanding_limit = 1000;
  bool standalone_enabled = true;

  // The whole file as read (Apache's icfg), for later use.
  std::string text;
};

struct ConfigResult {
  std::optional<ServerConfig> config;  // set on success
  std::string error;                   // set on failure: names the file, line and key
  std::vector<std::string> warnings;   // unknown keys and the like
};

// Parses zoo.cfg text; `file_name` is only used in messages.
ConfigResult parse_config(std::string_view text, const std::string& file_name);
// Reads and parses a file.
ConfigResult load_config(const std::filesystem::path& file);

// Creates dataDir (and dataLogDir) when missing. Empty on success, else why not.
std::string prepare_directories(const ServerConfig& config);

}  // namespace zkd::server
