// SPDX-License-Identifier: Apache-2.0
// Parsing of ZooKeeper connect strings: "host1:port1,host2:port2[/chroot]"
// (docs/wire-protocol.md §11.2, Apache's ConnectStringParser).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libzk/client/result.h"

namespace zk::client {

struct HostPort {
  std::string host;  // name, IPv4 literal, or IPv6 literal without brackets
  uint16_t port = 2181;
  bool operator==(const HostPort&) const = default;
};

struct ConnectString {
  std::vector<HostPort> hosts;  // never empty after a successful parse
  std::string chroot;           // "" when none; otherwise a valid path other than "/"
  bool operator==(const ConnectString&) const = default;
};

// Parses a connect string. Everything from the first '/' is the chroot ("/"
// alone means none); hosts are comma separated, the port defaults to 2181, an
// IPv6 literal is written in brackets ("[::1]:2181"). Empty host lists, bad
// ports and invalid chroot paths yield Error::kBadArguments.
Result<ConnectString> parse_connect_string(std::string_view text);

// One "host", "host:port", "[v6]" or "[v6]:port" into `out`; out.port is
// kept when the text names none (so the caller's default stands). False
// when it does not read (out is then unspecified).
bool parse_host_port(std::string_view text, HostPort& out);

}  // namespace zk::client
