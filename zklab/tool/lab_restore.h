// SPDX-License-Identifier: Apache-2.0
// `zklab restore FILE`: docs/quorum-loss-recovery.md's procedure done on a
// lab. FILE (one Apache snapshot: `zklab backup`'s, `zkctl backup`'s,
// Apache's) is first restored into a throw-away dataDir with `zkd restore`,
// so that a file zkd cannot read changes nothing; then every node is stopped
// (`zklab down`'s code: the relay daemon too), each node's dataDir moved
// aside as n<id>/data.before-restore-<UTC time> (myid and session.key copied
// back into a new, empty data/), `zkd restore -c n<id>/zoo.cfg FILE` run for
// each node, and the lab started again (`zklab up`'s code: it waits, within
// the deadline, until every node serves under one leader).
#pragma once

#include <filesystem>

#include "zklab/tool/lab_commands.h"

namespace zk::lab {

struct RestoreOptions {
  std::filesystem::path file;
  bool json = false;
};

// Prints the restored zxid, the znodes, where each node's old data went and
// the time taken (one JSON object with options.json). kError, the lab as it
// was, when FILE does not restore or the lab has an Apache node (zkd restore
// writes zkd's dataDir); kError with the lab down, and the old data dirs
// named, when a node's restore or the start fails.
LabExit lab_restore(const LabContext& ctx, const RestoreOptions& options);

}  // namespace zk::lab
