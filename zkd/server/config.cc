#include "zkd/server/config.h"

#include <charconv>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "zkd/server/properties.h"

namespace zkd::server {
namespace {

// Keys Apache reads that a standalone zkd accepts silently without acting on.
const std::set<std::string, std::less<>>& quietly_accepted_keys() {
  static const std::set<std::string, std::less<>> keys = {
      "secureClientPort",
      "secureClientPortAddress",
      "clientPortListenBacklog",
      "peerType",
      "dynamicConfigFile",
      "localSessionsEnabled",
      "localSessionsUpgradingEnabled",
      "electionAlg",
      "quorumListenOnAllIPs",
      "syncEnabled",
      "extendedTypesEnabled",
      "maxCnxns",
      "skipACL",
      "enforceQuota",
      "snapSizeLimitInKb",
      "metricsProvider.className",
      "admin.enableServer",
      "admin.serverAddress",
      "admin.serverPort",
      "admin.commandURL",
      "admin.idleTimeout",
      "admin.portUnification",
      "admin.forceHttps",
      "jute.maxbuffer",
      "multiAddress.enabled",
      "DigestAuthenticationProvider.superDigest"};
  return keys;
}

class Parser {
 public:
  Parser(const std::string& file_name, ConfigResult& result) : file_(file_name), result_(result) {}

  // "zoo.cfg:3: tickTime: 'abc' is not a number"
  bool fail(const Property& p, const std::string& why) {
    if (result_.error.empty()) {
      result_.error = file_ + ":" + std::to_string(p.line) + ": " + p.key + ": " + why;
    }
    return false;
  }

  template <typename Int>
  bool number(const Property& p, Int& out) {
    const std::string& v = p.value;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (v.empty() || ec != std::errc{} || end != v.data() + v.size()) {
      return fail(p, "'" + v + "' is not a number");
    }
    return true;
  }

  bool boolean(const Property& p, bool& out) {
    // Java's Boolean.parseBoolean: "true" in any case is true, anything else false.
    std::string lower;
    for (char c : p.value)
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    out = lower == "true";
    return true;
  }

  void warn(const Property& p, const std::string& why) {
    result_.warnings.push_back(file_ + ":" + std::to_string(p.line) + ": " + why);
  }

 private:
  const std::string& file_;
  ConfigResult& result_;
};

bool apply(Parser& parser, const Property& p, ServerConfig& c, std::optional<int>& min_line,
           std::optional<int32_t>& min_timeout, std::optional<int32_t>& max_timeout,
           bool& has_client_port, bool& has_data_dir) {
  const std::string& k = p.key;
  if (k == "tickTime") {
    if (!parser.number(p, c.tick_time_ms)) return false;
    if (c.tick_time_ms <= 0) return parser.fail(p, "must be a positive number of milliseconds");
  } else if (k == "dataDir") {
    if (p.value.empty()) return parser.fail(p, "is empty");
    c.data_dir = p.value;
    has_data_dir = true;
  } else if (k == "dataLogDir") {
    c.data_log_dir = p.value;
  } else if (k == "clientPort") {
    int32_t port = 0;
    if (!parser.number(p, port)) return false;
    if (port <= 0 || port > 65535) return parser.fail(p, "'" + p.value + "' is not a TCP port");
    c.client_port = static_cast<uint16_t>(port);
    has_client_port = true;
  } else if (k == "clientPortAddress") {
    c.client_port_address = p.value;
  } else if (k == "maxClientCnxns") {
    if (!parser.number(p, c.max_client_cnxns)) return false;
    if (c.max_client_cnxns < 0) return parser.fail(p, "must not be negative");
  } else if (k == "minSessionTimeout") {
    int32_t v = 0;
    if (!parser.number(p, v)) return false;
    min_timeout = v;
    min_line = p.line;
  } else if (k == "maxSessionTimeout") {
    int32_t v = 0;
    if (!parser.number(p, v)) return false;
    max_timeout = v;
  } else if (k == "4lw.commands.whitelist") {
    c.four_letter_whitelist = p.value;
  } else if (k == "reconfigEnabled") {
    parser.boolean(p, c.reconfig_enabled);
  } else if (k == "initLimit") {
    int32_t v = 0;
    if (!parser.number(p, v)) return false;
    c.init_limit = v;
  } else if (k == "syncLimit") {
    int32_t v = 0;
    if (!parser.number(p, v)) return false;
    c.sync_limit = v;
  } else if (k.rfind("server.", 0) == 0) {
    int64_t id = 0;
    std::string_view digits = std::string_view(k).substr(7);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size()) {
      return parser.fail(p, "the server id after 'server.' is not a number");
    }
    c.servers[id] = p.value;
  } else if (k == "autopurge.snapRetainCount") {
    if (!parser.number(p, c.autopurge_snap_retain_count)) return false;
    if (c.autopurge_snap_retain_count < 3) c.autopurge_snap_retain_count = 3;  // Apache's floor
  } else if (k == "autopurge.purgeInterval") {
    if (!parser.number(p, c.autopurge_purge_interval_hours)) return false;
  } else if (k == "snapCount") {
    if (!parser.number(p, c.snap_count)) return false;
    if (c.snap_count < 2) c.snap_count = 2;  // Apache's floor
  } else if (k == "preAllocSize") {
    if (!parser.number(p, c.pre_alloc_size_kb)) return false;
    if (c.pre_alloc_size_kb <= 0) return parser.fail(p, "must be a positive number of KiB");
  } else if (k == "forceSync") {
    // Apache: zookeeper.forceSync; only "no" turns fsync off.
    c.force_sync = p.value != "no";
  } else if (k == "globalOutstandingLimit") {
    if (!parser.number(p, c.global_outstanding_limit)) return false;
  } else if (k == "standaloneEnabled") {
    parser.boolean(p, c.standalone_enabled);
  } else if (quietly_accepted_keys().count(k) != 0 || k.rfind("metricsProvider.", 0) == 0 ||
             k.rfind("authProvider.", 0) == 0) {
    // Accepted for compatibility; not acted on.
  } else {
    parser.warn(p, "unknown key '" + k + "' ignored");
  }
  return true;
}

}  // namespace

ConfigResult parse_config(std::string_view text, const std::string& file_name) {
  ConfigResult result;
  Parser parser(file_name, result);
  ServerConfig c;
  c.text = std::string(text);
  std::optional<int> min_line;
  std::optional<int32_t> min_timeout;
  std::optional<int32_t> max_timeout;
  bool has_client_port = false;
  bool has_data_dir = false;
  std::optional<Property> client_port_address;
  for (const Property& p : parse_properties(text)) {
    if (p.key == "clientPortAddress") client_port_address = p;
    if (!apply(parser, p, c, min_line, min_timeout, max_timeout, has_client_port, has_data_dir)) {
      return result;
    }
  }
  if (!has_data_dir) {
    result.error = file_name + ": dataDir is not set";
    return result;
  }
  if (!has_client_port) {
    if (client_port_address) {
      parser.fail(*client_port_address, "clientPortAddress is set but clientPort is not");
    } else {
      result.error = file_name + ": clientPort is not set";
    }
    return result;
  }
  if (c.data_log_dir.empty()) c.data_log_dir = c.data_dir;
  // -1 (or absent) means the default, as in Apache.
  c.min_session_timeout_ms =
      (!min_timeout || *min_timeout == -1) ? 2 * c.tick_time_ms : *min_timeout;
  c.max_session_timeout_ms =
      (!max_timeout || *max_timeout == -1) ? 20 * c.tick_time_ms : *max_timeout;
  if (c.min_session_timeout_ms > c.max_session_timeout_ms) {
    result.error = file_name + ":" + (min_line ? std::to_string(*min_line) : std::string("?")) +
                   ": minSessionTimeout: " + std::to_string(c.min_session_timeout_ms) +
                   " must not be larger than maxSessionTimeout " +
                   std::to_string(c.max_session_timeout_ms);
    if (!min_line) {
      result.error =
          file_name + ": maxSessionTimeout: " + std::to_string(c.max_session_timeout_ms) +
          " must not be smaller than minSessionTimeout " + std::to_string(c.min_session_timeout_ms);
    }
    return result;
  }
  result.config = std::move(c);
  return result;
}

ConfigResult load_config(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    ConfigResult result;
    result.error = file.string() + ": cannot read the configuration file";
    return result;
  }
  std::ostringstream text;
  text << in.rdbuf();
  ConfigResult result = parse_config(text.str(), file.string());
  if (result.config) result.config->source = file;
  return result;
}

std::string prepare_directories(const ServerConfig& config) {
  for (const auto& dir : {config.data_dir, config.data_log_dir}) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return "cannot create directory " + dir.string() + ": " + ec.message();
    if (!std::filesystem::is_directory(dir, ec)) return dir.string() + " is not a directory";
  }
  return {};
}

}  // namespace zkd::server
