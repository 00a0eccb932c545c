// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/membership.h"

#include <charconv>

namespace zkd::server {
namespace {

std::string delimited_host(const std::string& host) {
  return host.find(':') == std::string::npos ? host : "[" + host + "]";
}

}  // namespace

std::string quorum_server_text(const QuorumServer& server) {
  std::string out = delimited_host(server.host) + ":" + std::to_string(server.quorum_port) + ":" +
                    std::to_string(server.election_port) +
                    (server.observer ? ":observer" : ":participant");
  if (server.client_port != 0) {
    const std::string address = server.client_address.empty() ? "0.0.0.0" : server.client_address;
    out += ";" + delimited_host(address) + ":" + std::to_string(server.client_port);
  }
  return out;
}

std::string membership_text(const std::map<int64_t, QuorumServer>& servers, int64_t version) {
  std::string out;
  for (const auto& [id, server] : servers) {
    out += "server." + std::to_string(id) + "=" + quorum_server_text(server) + "\n";
  }
  char hex[17];
  auto end = std::to_chars(hex, hex + sizeof hex, static_cast<uint64_t>(version), 16).ptr;
  return out + "version=" + std::string(hex, end);
}

}  // namespace zkd::server
