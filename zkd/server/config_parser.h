// SPDX-License-Identifier: Apache-2.0
// What a zoo.cfg key's apply function (ConfigKey::apply, config_keys.h) works
// with while parse_config (config.h) reads a file: the parser, which reports
// errors and warnings naming the file, line and key, and ConfigSeen, what
// parse_config checks across keys after the last line (ensemble, session
// timeouts, the client port). Only config.cc and config_keys.cc use it.
#pragma once

#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>

#include "zkd/server/config.h"
#include "zkd/server/config_keys.h"
#include "zkd/server/properties.h"

namespace zkd::server {

// Filled in by the keys' apply functions; read after the last line.
struct ConfigSeen {
  std::optional<int> min_line;  // minSessionTimeout's line
  std::optional<int32_t> min_timeout;
  std::optional<int32_t> max_timeout;
  bool has_client_port = false;
  bool has_data_dir = false;
  std::optional<Property> client_port_address;
  std::optional<Property> init_limit;
  std::optional<Property> sync_limit;
  std::map<int64_t, int> server_lines;  // id -> line
  std::optional<Property> dynamic_config_file;
};

// Reads the lines of one file (zoo.cfg, or the dynamic file it names) into a
// ConfigResult; several parsers (one per file) may share one ConfigSeen.
class ConfigParser {
 public:
  // `file_name` names the file in messages; all three must outlive the parser.
  ConfigParser(const std::string& file_name, ConfigResult& result, ConfigSeen& seen)
      : file_(file_name), result_(result), seen_(seen) {}

  ConfigSeen& seen() { return seen_; }

  // Records "zoo.cfg:3: tickTime: <why>" unless an error is recorded already
  // (the first one counts); always false, so that `return fail(...)` stops.
  bool fail(const Property& p, const std::string& why) {
    if (result_.error.ok()) {
      result_.error =
          Status::config(file_ + ":" + std::to_string(p.line) + ": " + p.key + ": " + why);
    }
    return false;
  }

  // The whole value as a decimal number; fails "'abc' is not a number".
  template <typename Int>
  bool number(const Property& p, Int& out) {
    const std::string& v = p.value;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (v.empty() || ec != std::errc{} || end != v.data() + v.size()) {
      return fail(p, "'" + v + "' is not a number");
    }
    return true;
  }

  // number(), then fails with `why` when it is below `min` (`out` is set).
  template <typename Int>
  bool number_at_least(const Property& p, Int& out, std::type_identity_t<Int> min,
                       const std::string& why) {
    if (!number(p, out)) return false;
    if (out < min) return fail(p, why);
    return true;
  }

  // A TCP port, 1..65535; fails "'x' is not a number" or "'x' is not a TCP port".
  bool tcp_port(const Property& p, uint16_t& out) {
    int32_t port = 0;
    if (!number(p, port)) return false;
    out = static_cast<uint16_t>(port);
    if (port <= 0 || port > 65535) return fail(p, "'" + p.value + "' is not a TCP port");
    return true;
  }

  // Java's Boolean.parseBoolean (java_true): never fails.
  bool boolean(const Property& p, bool& out) {
    out = java_true(p.value);
    return true;
  }

  // "zoo.cfg:3: <why>": the message names no key, so `why` does.
  void warn(const Property& p, const std::string& why) {
    result_.warnings.push_back(file_ + ":" + std::to_string(p.line) + ": " + why);
  }

 private:
  const std::string& file_;
  ConfigResult& result_;
  ConfigSeen& seen_;
};

}  // namespace zkd::server
