// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/connect_string.h"

#include <charconv>

#include "libzk/wire/path.h"

namespace zk::client {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool parse_port(std::string_view text, uint16_t& port) {
  if (text.empty()) return false;
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value == 0 || value > 65535) {
    return false;
  }
  port = static_cast<uint16_t>(value);
  return true;
}

}  // namespace

bool parse_host_port(std::string_view text, HostPort& out) {
  text = trim(text);
  if (text.empty()) return false;
  std::string_view port_text;
  if (text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos || close == 1) return false;
    out.host = std::string(text.substr(1, close - 1));
    std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return false;
      port_text = rest.substr(1);
      if (!parse_port(port_text, out.port)) return false;
    }
    return true;
  }
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    out.host = std::string(text);
    return true;
  }
  if (text.find(':') != colon) return false;  // bare IPv6 literal: brackets required
  out.host = std::string(text.substr(0, colon));
  if (out.host.empty()) return false;
  return parse_port(text.substr(colon + 1), out.port);
}

Result<ConnectString> parse_connect_string(std::string_view text) {
  ConnectString result;
  std::string_view hosts = text;
  size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    hosts = text.substr(0, slash);
    std::string_view chroot = text.substr(slash);
    if (chroot != "/") {
      if (!zk::wire::path_error(chroot).empty()) return Error::kBadArguments;
      result.chroot = std::string(chroot);
    }
  }
  size_t start = 0;
  while (start <= hosts.size()) {
    size_t comma = hosts.find(',', start);
    if (comma == std::string_view::npos) comma = hosts.size();
    std::string_view item = trim(hosts.substr(start, comma - start));
    if (!item.empty()) {
      HostPort hp;
      if (!parse_host_port(item, hp)) return Error::kBadArguments;
      result.hosts.push_back(std::move(hp));
    }
    start = comma + 1;
  }
  if (result.hosts.empty()) return Error::kBadArguments;
  return result;
}

}  // namespace zk::client
