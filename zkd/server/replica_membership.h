// SPDX-License-Identifier: Apache-2.0
// The replica's membership as the Zab core needs it, from zkd's files and
// txns: which log entries change it (Apache's reconfig txn, a SetDataTxn of
// /zookeeper/config), and what it is at start, from the snapshot's
// /zookeeper/config and the reconfig txns in the log after it (docs/zab.md,
// "Reconfiguration"; docs/replication.md, "Reconfiguration").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "zkd/server/reconfig.h"
#include "zkd/status/status.h"
#include "zkd/storage/txn_log.h"
#include "zkd/zab/config.h"
#include "zkd/zab/types.h"

namespace zkd::server {

// The Zab core's part of a configuration: who votes, who observes.
zab::Membership zab_membership(const QuorumServers& servers);

// The membership a log entry installs: a reconfig txn gives its servers;
// any other entry nothing. The core's Config::membership_of in zkd.
std::optional<zab::Membership> reconfig_membership(const zab::Entry& entry);

// The index of the last reconfig txn in `records`, or records.size() when
// there is none.
size_t last_reconfig_index(const std::vector<storage::LogRecord>& records);

// At start: `config` takes the membership of `snapshot_config` (the
// snapshot's /zookeeper/config when a reconfiguration wrote it; empty:
// config keeps zoo.cfg's), even when that leaves this server out (removed;
// or being added, with a snapshot from before: it joins once a membership
// with it is committed). Text that does not parse is corruption.
Status take_snapshot_membership(zab::Config& config, const std::string& snapshot_config);
// Then: `config` takes every reconfiguration in the log `records` after the
// snapshot but the last one (a reconfiguration followed by another was
// committed). The last one may not be: replica_bootstrap keeps it among the
// core's entries, and the core holds it as pending until it learns more.
void take_logged_membership(zab::Config& config, const std::vector<storage::LogRecord>& records);

}  // namespace zkd::server
