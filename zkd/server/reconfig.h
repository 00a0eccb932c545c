// SPDX-License-Identifier: Apache-2.0
// The reconfig request (opcode 16) as Apache 3.5+'s leader takes it: an
// incremental change (servers joining, ids leaving) or a whole new
// membership, checked against the configuration version the client names,
// giving the text /zookeeper/config holds next (docs/apache-behaviour.md,
// "/zookeeper/config"; docs/replication.md, "Reconfiguration").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "libzk/wire/protocol.h"
#include "zkd/server/config.h"

namespace zkd::server {

// server.N -> its line, the membership of one configuration.
using QuorumServers = std::map<int64_t, QuorumServer>;

// ReconfigRequest: joiningServers, leavingServers, newMembers (each may be
// null or empty: absent), curConfigId (-1: any).
struct ReconfigRequest {
  std::optional<std::string> joining;
  std::optional<std::string> leaving;
  std::optional<std::string> new_members;
  int64_t from_config = -1;
};
// Nothing when `body` is not a whole ReconfigRequest.
std::optional<ReconfigRequest> decode_reconfig_request(std::string_view body);

struct ReconfigPlan {
  zk::wire::Error error = zk::wire::Error::kOk;
  std::string why;  // error: what was wrong, for the log
  QuorumServers servers;
};

// The membership `request` asks for, from `current` at `version`:
// BADVERSION when from_config is neither -1 nor `version`; BADARGUMENTS for
// a line that does not parse ("server.N=<server line>", comma-separated;
// leaving: comma-separated ids), for new members together with joining or
// leaving, for a result without voters, and (not done yet) for a server
// that stays but changes between participant and observer.
ReconfigPlan plan_reconfig(const QuorumServers& current, int64_t version,
                           const ReconfigRequest& request);

// The servers and version of a membership text (membership_text's form);
// nothing when a line does not parse.
std::optional<std::pair<QuorumServers, int64_t>> parse_membership_text(std::string_view text);

}  // namespace zkd::server
