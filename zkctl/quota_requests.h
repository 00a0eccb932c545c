// SPDX-License-Identifier: Apache-2.0
// zkCli's quota commands as plain requests on the session, the way Apache's
// CLI makes them (the server only keeps the usage): a quota on PATH is the
// node /zookeeper/quota/PATH/zookeeper_limits beside zookeeper_stats
// (libzk/wire/quota_nodes.h).
//
//   setquota   refused under /zookeeper/quota, for a missing PATH, and when an
//              ancestor or a descendant of PATH has a quota; otherwise creates
//              the quota's nodes (limits unset but the one given, usage 0,
//              which the server recounts) or changes the one limit.
//   listquota  the limits and the usage; NO_QUOTA (exit 3) when there is none.
//   delquota   without a limit, deletes the quota's nodes and the quota
//              directories left empty; with one, unsets that limit. NO_QUOTA
//              when there is none (zkCli only prints a line then).
#pragma once

#include <variant>

#include "libzk/client/sync_client.h"
#include "zkctl/command.h"
#include "zkctl/command_result.h"

namespace zkctl {

std::variant<DoneResult, CommandFailure> set_quota(zk::client::SyncClient& zk,
                                                   const SetQuotaCommand& command);
std::variant<QuotaResult, CommandFailure> list_quota(zk::client::SyncClient& zk,
                                                     const ListQuotaCommand& command);
std::variant<DoneResult, CommandFailure> del_quota(zk::client::SyncClient& zk,
                                                   const DelQuotaCommand& command);

}  // namespace zkctl
