// SPDX-License-Identifier: Apache-2.0
// The ensemble's membership as Apache 3.5+ writes it: the data of
// /zookeeper/config, the "membership:" part of the conf four-letter word and
// the lines of a zoo.cfg.dynamic file (docs/apache-behaviour.md,
// "/zookeeper/config").
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "zkd/server/config.h"

namespace zkd::server {

// One server as Apache's QuorumServer.toString() gives it:
// host:quorumPort:electionPort:participant|observer, then ";address:port"
// when the server.N line named a client port (an absent address is
// 0.0.0.0, Apache's wildcard). A host with a ':' (IPv6) is bracketed.
std::string quorum_server_text(const QuorumServer& server);

// The version of a configuration read from zoo.cfg's static server.N lines
// (Apache's, with reconfigEnabled false).
inline constexpr int64_t kStaticConfigVersion = 0;

// "server.N=<quorum_server_text>\n" for every server by id, then
// "version=<hex>" without a line end (Apache's QuorumMaj.toString()).
std::string membership_text(const std::map<int64_t, QuorumServer>& servers, int64_t version);
inline std::string membership_text(const ServerConfig& config, int64_t version) {
  return membership_text(config.quorum_servers, version);
}

}  // namespace zkd::server
