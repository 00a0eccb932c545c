// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/config.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>
#include <tuple>
#include <vector>

#include "zkd/server/config_keys.h"
#include "zkd/server/config_parser.h"
#include "zkd/server/properties.h"

namespace zkd::server {
namespace {

size_t participants(const std::map<int64_t, QuorumServer>& servers) {
  size_t n = 0;
  for (const auto& [id, server] : servers) n += server.observer ? 0 : 1;
  return n;
}

std::vector<std::string_view> split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    size_t at = s.find(separator);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

// Apache's ConfigUtils.getHostAndPort: "host:a:b" -> {host, a, b}, where the
// host may be an IPv6 address in brackets ("[::1]:a:b" -> {::1, a, b}).
// nullopt for an unclosed bracket or one followed by anything but ':'.
std::optional<std::vector<std::string_view>> host_and_ports(std::string_view s) {
  if (!s.starts_with('[')) return split(s, ':');
  const size_t close = s.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  std::vector<std::string_view> parts{s.substr(1, close - 1)};
  std::string_view rest = s.substr(close + 1);
  if (rest.empty()) return parts;
  if (rest.front() != ':') return std::nullopt;
  for (std::string_view part : split(rest.substr(1), ':')) parts.push_back(part);
  return parts;
}

std::optional<uint16_t> tcp_port(std::string_view v) {
  int32_t port = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), port);
  if (v.empty() || ec != std::errc{} || end != v.data() + v.size() || port <= 0 || port > 65535) {
    return std::nullopt;
  }
  return static_cast<uint16_t>(port);
}

constexpr std::string_view kServerLineForm =
    "host:quorumPort:electionPort[:participant|:observer][;[clientAddress:]clientPort]";

}  // namespace

StatusOr<QuorumServer> parse_server_line(std::string_view value) {
  QuorumServer out;
  const std::string quoted = "'" + std::string(value) + "'";
  const std::string expected = " (expected " + std::string(kServerLineForm) + ")";
  const std::vector<std::string_view> halves = split(value, ';');
  if (halves.size() > 2) return Status::invalid_argument(quoted + ": more than one ';'" + expected);
  if (halves[0].find('|') != std::string_view::npos) {
    return Status::invalid_argument(
        quoted + ": several addresses for one server (separated by '|') are not supported");
  }
  auto parts = host_and_ports(halves[0]);
  if (!parts) return Status::invalid_argument(quoted + ": bad IPv6 address in brackets" + expected);
  if (parts->size() < 3) {
    return Status::invalid_argument(
        quoted + (parts->size() == 1 ? ": no quorum and election ports" : ": no election port") +
        expected);
  }
  if (parts->size() > 4) {
    return Status::invalid_argument(quoted + ": too many ':'" + expected +
                                    "; write an IPv6 address in brackets");
  }
  if ((*parts)[0].empty())
    return Status::invalid_argument(quoted + ": the host is empty" + expected);
  out.host = std::string((*parts)[0]);
  const auto quorum_port = tcp_port((*parts)[1]);
  if (!quorum_port)
    return Status::invalid_argument("'" + std::string((*parts)[1]) +
                                    "' is not a TCP port (the quorum port)");
  const auto election_port = tcp_port((*parts)[2]);
  if (!election_port) {
    return Status::invalid_argument("'" + std::string((*parts)[2]) +
                                    "' is not a TCP port (the election port)");
  }
  out.quorum_port = *quorum_port;
  out.election_port = *election_port;
  out.observer = false;
  if (parts->size() == 4) {
    const std::string type = lower_case((*parts)[3]);
    if (type != "participant" && type != "observer") {
      return Status::invalid_argument("'" + std::string((*parts)[3]) +
                                      "' is not a peer type (participant or observer)");
    }
    out.observer = type == "observer";
  }
  out.client_address.clear();
  out.client_port = 0;
  if (halves.size() == 2) {
    auto client = host_and_ports(halves[1]);
    if (!client || client->size() > 2) {
      return Status::invalid_argument(quoted + ": bad client address after ';'" + expected);
    }
    if (client->size() == 2) {
      if ((*client)[0].empty())
        return Status::invalid_argument(quoted + ": the client address is empty" + expected);
      out.client_address = std::string((*client)[0]);
    }
    const auto client_port = tcp_port(client->back());
    if (!client_port) {
      return Status::invalid_argument("'" + std::string(client->back()) +
                                      "' is not a TCP port (the client port)");
    }
    out.client_port = *client_port;
  }
  return out;
}

namespace {

// After the last line: quorum.auth.*RequireSasl needs quorum.auth.enableSasl,
// as Apache checks.
bool check_quorum_sasl(const ServerConfig& c, const std::string& file_name, ConfigResult& result) {
  for (auto [required, key] : {std::pair{c.quorum_sasl_learner_required, "learnerRequireSasl"},
                               std::pair{c.quorum_sasl_server_required, "serverRequireSasl"}}) {
    if (required && !c.quorum_sasl) {
      result.error = Status::config(file_name + ": quorum.auth." + key +
                                    " needs quorum.auth.enableSasl=true (as in Apache)");
      return false;
    }
  }
  return true;
}

// After the last line: Apache's peer protocol is spoken in plaintext, without
// quorum SASL, so far.
bool check_peer_protocol(const ServerConfig& c, const std::string& file_name,
                         ConfigResult& result) {
  if (!c.apache_peer_protocol) return true;
  const char* missing = c.ssl_quorum                ? "sslQuorum"
                        : c.quorum_port_unification ? "portUnification"
                        : c.quorum_sasl             ? "quorum.auth.enableSasl"
                                                    : nullptr;
  if (missing == nullptr) return true;
  result.error = Status::config(file_name + ": zkd.peerProtocol=apache does not support " +
                                missing + " yet (docs/apache-peer-protocol.md)");
  return false;
}

// After the last line: enforced authentication needs schemes zkd serves
// (sessionRequireClientSASLAuth=true stands for sasl, as in Apache).
bool check_enforced_auth(ServerConfig& c, const std::string& file_name, ConfigResult& result) {
  if (c.session_require_sasl) {
    c.enforce_auth = true;
    c.enforce_auth_schemes = {"sasl"};
  }
  if (!c.enforce_auth) return true;
  if (c.enforce_auth_schemes.empty()) {
    result.error = Status::config(
        file_name +
        ": enforce.auth.enabled is true, so enforce.auth.schemes must name the schemes "
        "a client must have authenticated with (digest, ip, sasl, x509)");
    return false;
  }
  for (const std::string& scheme : c.enforce_auth_schemes) {
    if (scheme != "digest" && scheme != "ip" && scheme != "sasl" && scheme != "x509") {
      result.error =
          Status::config(file_name + ": enforce.auth.schemes: authentication scheme " + scheme +
                         " is not available (zkd serves digest, ip, sasl and x509)");
      return false;
    }
  }
  return true;
}

// After the last line: the protocols, and a TLS port needs a key store.
bool check_tls(ServerConfig& c, const std::string& file_name, ConfigResult& result) {
  for (auto [tls, protocol] : {std::pair{&c.client_tls_settings, &c.ssl_protocol},
                               std::pair{&c.quorum_tls_settings, &c.quorum_ssl_protocol}}) {
    if (tls->protocols.empty() && !protocol->empty()) {
      // Apache: TLSv1.3 also enables TLSv1.2; any other protocol only itself.
      tls->protocols = *protocol == "TLSv1.3" ? std::vector<std::string>{"TLSv1.3", "TLSv1.2"}
                                              : std::vector<std::string>{*protocol};
    }
  }
  if (c.admin_enabled && (c.admin_force_https || c.admin_port_unification) &&
      c.quorum_tls_settings.key_store.location.empty()) {
    result.error = Status::config(
        file_name + ": " + (c.admin_force_https ? "admin.forceHttps" : "admin.portUnification") +
        " needs ssl.quorum.keyStore.location (the admin server's key and certificate, "
        "as Apache's)");
    return false;
  }
  if ((c.ssl_quorum || c.quorum_port_unification) &&
      c.quorum_tls_settings.key_store.location.empty()) {
    result.error =
        Status::config(file_name + ": " + (c.ssl_quorum ? "sslQuorum" : "portUnification") +
                       " needs ssl.quorum.keyStore.location (this server's key and certificate)");
    return false;
  }
  net::TlsSettings& tls = c.client_tls_settings;
  if ((c.secure_client_port != 0 || c.port_unification) && tls.key_store.location.empty()) {
    result.error =
        Status::config(file_name + ": " +
                       (c.secure_client_port != 0 ? "secureClientPort" : "client.portUnification") +
                       " needs ssl.keyStore.location (this server's key and certificate)");
    return false;
  }
  return true;
}

// The entry that parses `key`: find_config_key's, else, for a bare prefix
// ("server.", "authProvider."), the honoured pattern's, whose apply function
// judges it (as Apache's startsWith does).
const ConfigKey* entry_for(std::string_view key) {
  if (const ConfigKey* entry = find_config_key(key)) return entry;
  if (!key.ends_with('.')) return nullptr;
  for (const ConfigKey& entry : config_keys()) {
    if (entry.apply != nullptr && entry.key.size() == key.size() + 1 &&
        entry.key.starts_with(key) && entry.key.ends_with('*')) {
      return &entry;
    }
  }
  return nullptr;
}

// One line, as its registry entry (config_keys.h) says: refused, applied,
// warned, or silent; an unknown key is warned with a hint. `overridden`: a
// later line gives the same key, whose value counts (as in
// java.util.Properties), so this one cannot be refused.
bool apply(ConfigParser& parser, const Property& p, bool overridden, ServerConfig& c) {
  const std::string& k = p.key;
  const ConfigKey* known = entry_for(k);
  if (known == nullptr) {
    // Apache turns an unknown key into a JVM system property; zkd warns.
    const std::string hint = closest_config_key_hint(k);
    parser.warn(p, "unknown key '" + k + "' ignored" + (hint.empty() ? "" : "; " + hint));
    return true;
  }
  if (!overridden && known->key_class == KeyClass::kRefused && class_applies(*known, p.value)) {
    return parser.fail(p, std::string(known->note));
  }
  if (known->apply != nullptr) return known->apply(parser, p, c);
  if (known->key_class == KeyClass::kWarned && class_applies(*known, p.value)) {
    parser.warn(p, k + "=" + p.value + " is accepted, but " + std::string(known->note));
  }
  // Otherwise of no effect (or a value that is what zkd does): silent.
  return true;
}

// Checks the ensemble keys as a whole (after the last line): which
// combinations of participants, observers and standaloneEnabled Apache
// accepts, and initLimit/syncLimit in replicated mode.
bool check_ensemble(ConfigParser& parser, const ServerConfig& c, const ConfigSeen& seen,
                    const std::string& file_name, ConfigResult& result) {
  const size_t voters = participants(c.quorum_servers);
  const size_t observers = c.quorum_servers.size() - voters;
  if (c.quorum_servers.empty()) {
    if (!c.standalone_enabled) {
      result.error = Status::config(file_name + ": standaloneEnabled=false needs server.N lines");
      return false;
    }
    return true;
  }
  if (voters == 0) {
    result.error = Status::config(
        file_name + ": every server.N line is an observer; an ensemble needs participants");
    return false;
  }
  if (voters == 1 && c.standalone_enabled) {
    if (observers > 0) {
      result.error = Status::config(file_name +
                                    ": observers need an ensemble: there is one participant and "
                                    "standaloneEnabled is not false");
      return false;
    }
    result.warnings.push_back(file_name + ":" + std::to_string(seen.server_lines.begin()->second) +
                              ": only one server.N line and standaloneEnabled is not false: "
                              "running standalone; of the line only its client port counts");
    return true;
  }
  // Replicated from here on.
  for (const auto& [key, property, limit] :
       {std::tuple{"initLimit", &seen.init_limit, c.init_limit},
        std::tuple{"syncLimit", &seen.sync_limit, c.sync_limit}}) {
    if (!limit) {
      result.error = Status::config(file_name + ": " + key + " is not set");
      return false;
    }
    if (*limit < 1) return parser.fail(**property, "must be at least 1 tick");
  }
  if (voters == 2) {
    result.warnings.push_back(file_name +
                              ": two participants: no server failure will be tolerated; "
                              "you need at least 3 servers");
  } else if (voters % 2 == 0) {
    result.warnings.push_back(file_name + ": " + std::to_string(voters) +
                              " participants: an even number tolerates no more failures than "
                              "one fewer; consider an odd number of servers");
  }
  return true;
}

}  // namespace

bool ServerConfig::prometheus_enabled() const {
  return metrics_provider_class ==
         "org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider";
}

bool ServerConfig::replicated() const {
  return !quorum_servers.empty() && (participants(quorum_servers) > 1 || !standalone_enabled);
}

int64_t ServerConfig::peer_silence_ms() const {
  const int64_t sync = static_cast<int64_t>(sync_limit.value_or(5)) * tick_time_ms;
  if (apache_peer_protocol) return sync;  // Apache's leaders ping only each half tick
  return peer_timeout_ms > 0 ? std::min<int64_t>(sync, peer_timeout_ms) : sync;
}

namespace {

// The version a dynamic file's name gives: zoo.cfg.dynamic.<hex>; 0 without.
int64_t version_in_name(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos) return 0;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(name.data() + dot + 1, name.data() + name.size(), v, 16);
  return ec == std::errc{} && end == name.data() + name.size() ? static_cast<int64_t>(v) : 0;
}

// dynamicConfigFile: its server.N (and Apache's version=) lines, read as
// zoo.cfg's own would be, errors naming that file and line.
bool read_dynamic_config(ConfigParser& parser, ServerConfig& c, ConfigSeen& seen,
                         ConfigResult& result) {
  const Property& key = *seen.dynamic_config_file;
  if (!seen.server_lines.empty()) {
    return parser.fail(key,
                       "zoo.cfg has server.N lines too; keep them in one place (Apache "
                       "reads the dynamic file's)");
  }
  std::ifstream in(c.dynamic_config_file, std::ios::binary);
  if (!in) return parser.fail(key, "cannot read " + c.dynamic_config_file.string());
  std::ostringstream text;
  text << in.rdbuf();
  const std::string file = c.dynamic_config_file.string();
  ConfigParser lines(file, result, seen);
  c.config_version = version_in_name(c.dynamic_config_file);
  for (const Property& p : parse_properties(text.str())) {
    if (p.key == "version") {
      uint64_t v = 0;
      const auto [end, ec] =
          std::from_chars(p.value.data(), p.value.data() + p.value.size(), v, 16);
      if (ec != std::errc{} || end != p.value.data() + p.value.size()) {
        return lines.fail(p, "'" + p.value + "' is not a version (hex)");
      }
      c.config_version = static_cast<int64_t>(v);
    } else if (p.key.rfind("server.", 0) == 0 || p.key.rfind("group.", 0) == 0 ||
               p.key.rfind("weight.", 0) == 0) {
      if (!apply(lines, p, false, c)) return false;
    } else {
      return lines.fail(p, "a dynamic configuration file holds server.N lines only");
    }
  }
  return true;
}

}  // namespace

ConfigResult parse_config(std::string_view text, const std::string& file_name) {
  ConfigResult result;
  ServerConfig c;
  c.text = std::string(text);
  ConfigSeen seen;
  ConfigParser parser(file_name, result, seen);
  const std::vector<Property> properties = parse_properties(text);
  std::map<std::string_view, int> last_line;  // key -> the line whose value counts
  for (const Property& p : properties) last_line[p.key] = p.line;
  for (const Property& p : properties) {
    if (!apply(parser, p, last_line[p.key] != p.line, c)) return result;
  }
  if (!seen.has_data_dir) {
    result.error = Status::config(file_name + ": dataDir is not set");
    return result;
  }
  if (seen.dynamic_config_file && !read_dynamic_config(parser, c, seen, result)) return result;
  if (!check_ensemble(parser, c, seen, file_name, result)) return result;
  if (!check_tls(c, file_name, result)) return result;
  if (!check_enforced_auth(c, file_name, result)) return result;
  if (!check_quorum_sasl(c, file_name, result)) return result;
  if (!check_peer_protocol(c, file_name, result)) return result;
  if (!seen.has_client_port) {
    if (seen.client_port_address) {
      parser.fail(*seen.client_port_address, "clientPortAddress is set but clientPort is not");
      return result;
    }
    // The port may come from this server's line, picked by myid (load_config),
    // standalone too: Apache's Docker image writes no clientPort.
    bool lines_give_ports = false;
    for (const auto& [id, server] : c.quorum_servers) lines_give_ports |= server.client_port != 0;
    if (!lines_give_ports) {
      if (c.secure_client_port == 0) {
        result.error = Status::config(file_name + ": clientPort and secureClientPort are not set");
        return result;
      }
      c.plaintext_clients = false;  // TLS clients only
    }
  }
  if (c.data_log_dir.empty()) c.data_log_dir = c.data_dir;
  // -1 (or absent) means the default, as in Apache.
  c.min_session_timeout_ms =
      (!seen.min_timeout || *seen.min_timeout == -1) ? 2 * c.tick_time_ms : *seen.min_timeout;
  c.max_session_timeout_ms =
      (!seen.max_timeout || *seen.max_timeout == -1) ? 20 * c.tick_time_ms : *seen.max_timeout;
  if (c.min_session_timeout_ms > c.max_session_timeout_ms) {
    result.error = Status::config(
        file_name + ":" + (seen.min_line ? std::to_string(*seen.min_line) : std::string("?")) +
        ": minSessionTimeout: " + std::to_string(c.min_session_timeout_ms) +
        " must not be larger than maxSessionTimeout " + std::to_string(c.max_session_timeout_ms));
    if (!seen.min_line) {
      result.error = Status::config(
          file_name + ": maxSessionTimeout: " + std::to_string(c.max_session_timeout_ms) +
          " must not be smaller than minSessionTimeout " +
          std::to_string(c.min_session_timeout_ms));
    }
    return result;
  }
  result.config = std::move(c);
  return result;
}

std::optional<int64_t> parse_number_file(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\f\v";
  const size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return std::nullopt;
  text = text.substr(first, text.find_last_not_of(kSpace) - first + 1);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<int64_t> parse_my_id(std::string_view text) {
  // Apache: BufferedReader.readLine, then Long.parseLong (a sign allowed,
  // nothing else: not even a space).
  text = text.substr(0, text.find_first_of("\r\n"));
  if (text.starts_with('+')) text.remove_prefix(1);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

namespace {

// The id in <dataDir>/myid (parse_my_id), or the error naming the file.
StatusOr<int64_t> read_my_id_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::config(
        path.string() +
        ": cannot read this server's id (an ensemble member needs a myid file holding the N "
        "of its server.N line)");
  }
  std::ostringstream content;
  content << in.rdbuf();
  const std::string text = content.str();
  const std::optional<int64_t> id = parse_my_id(text);
  if (!id) {
    std::string shown = text.substr(0, std::min<size_t>(40, text.find_first_of("\r\n")));
    return Status::config(
        path.string() + ": '" + shown +
        "' is not a server id (expected the N of this server's server.N line, in decimal, "
        "alone on the first line: no spaces, as Apache reads it)");
  }
  return *id;
}

std::string config_name(const ServerConfig& config) {
  return config.source.empty() ? "the configuration" : config.source.string();
}

}  // namespace

Status read_my_id(ServerConfig& config) {
  const std::filesystem::path path = config.data_dir / "myid";
  const StatusOr<int64_t> id = read_my_id_file(path);
  if (!id.ok()) return id.status();
  if (config.quorum_servers.count(*id) == 0) {
    return Status::config(path.string() + ": server id " + std::to_string(*id) + " has no server." +
                          std::to_string(*id) + " line in " + config_name(config));
  }
  config.my_id = *id;
  return {};
}

namespace {

// After read_my_id: this server's line supplies or must agree with
// clientPort, and decides its role over peerType.
void apply_own_line(ConfigResult& result, const std::string& file_name) {
  ServerConfig& c = *result.config;
  const QuorumServer& me = c.quorum_servers.at(c.my_id);
  const std::string line = "server." + std::to_string(c.my_id) + " (this server, per myid)";
  if (c.client_port == 0 && c.plaintext_clients) {
    if (me.client_port == 0) {
      if (c.secure_client_port == 0) {
        result.error = Status::config(file_name + ": clientPort is not set, and " + line +
                                      " gives no client port");
        return;
      }
      c.plaintext_clients = false;  // TLS clients only, on secureClientPort
    }
    c.client_port = me.client_port;
    c.client_port_address = me.client_address;
  } else if (me.client_port != 0 && me.client_port != c.client_port) {
    result.error = Status::config(file_name + ": clientPort " + std::to_string(c.client_port) +
                                  " differs from the client port " +
                                  std::to_string(me.client_port) + " of " + line);
    return;
  }
  if (c.peer_type_observer != me.observer) {
    result.warnings.push_back(
        file_name + ": peerType=" + (c.peer_type_observer ? "observer" : "participant") +
        " does not match " + line + ", which makes it " +
        (me.observer ? "an observer" : "a participant") + "; the server.N line wins");
  }
}

// A standalone server with a server.N line (Apache's Docker image: one line,
// no clientPort). As Apache, it reads <dataDir>/myid when the file exists and
// takes the client address and port of the line it names; unlike Apache,
// which then starts without any client port, zkd stops when that gives none.
// my_id stays 0: a standalone server's session ids carry id 1, as Apache's.
void apply_standalone_line(ConfigResult& result, const std::string& file_name) {
  ServerConfig& c = *result.config;
  if (!c.plaintext_clients) return;  // secureClientPort alone
  const std::filesystem::path path = c.data_dir / "myid";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    if (c.client_port == 0) {
      result.error =
          Status::config(file_name + ": clientPort is not set, and " + path.string() +
                         " does not exist to name the server.N line whose client port to use "
                         "(Apache would run without a client port); set clientPort, or write this "
                         "server's N into myid");
    }
    return;
  }
  const StatusOr<int64_t> id = read_my_id_file(path);
  if (!id.ok()) {
    result.error = id.status();
    return;
  }
  const auto me = c.quorum_servers.find(*id);
  const uint16_t line_port = me == c.quorum_servers.end() ? 0 : me->second.client_port;
  if (c.client_port == 0) {
    if (line_port == 0) {
      result.error = Status::config(
          file_name + ": clientPort is not set, and server." + std::to_string(*id) +
          " (this server, per " + path.string() + ") " +
          (me == c.quorum_servers.end() ? "does not exist" : "gives no client port") +
          " (Apache would run without a client port); set clientPort");
      return;
    }
    c.client_port = line_port;
    c.client_port_address = me->second.client_address;
  } else if (line_port != 0 && line_port != c.client_port) {
    result.error = Status::config(file_name + ": clientPort " + std::to_string(c.client_port) +
                                  " differs from the client port " + std::to_string(line_port) +
                                  " of server." + std::to_string(*id) + " (this server, per myid)");
  }
}

}  // namespace

ConfigResult load_config(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    ConfigResult result;
    result.error = Status::config(file.string() + ": cannot read the configuration file");
    return result;
  }
  std::ostringstream text;
  text << in.rdbuf();
  ConfigResult result = parse_config(text.str(), file.string());
  if (!result.config) return result;
  result.config->source = file;
  if (result.config->replicated()) {
    result.error = read_my_id(*result.config);
    if (result.error.ok()) apply_own_line(result, file.string());
    if (result.error.ok() && result.config->extended_types_enabled && result.config->my_id > 254) {
      // Apache's EphemeralType.validateServerId: a TTL node's owner has the
      // top byte 0xFF, which server id 255 puts into its session ids.
      result.error =
          Status::config(file.string() + ": extendedTypesEnabled is true but server id " +
                         std::to_string(result.config->my_id) + " is larger than 254");
    }
    if (!result.error.ok()) result.config.reset();
  } else if (!result.config->quorum_servers.empty()) {
    apply_standalone_line(result, file.string());
    if (!result.error.ok()) result.config.reset();
  }
  return result;
}

Status prepare_directories(const ServerConfig& config) {
  for (const auto& dir : {config.data_dir, config.data_log_dir}) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Status::error("cannot create directory " + dir.string() + ": " + ec.message());
    if (!std::filesystem::is_directory(dir, ec)) {
      return Status::config(dir.string() + " is not a directory");
    }
  }
  return {};
}

}  // namespace zkd::server
