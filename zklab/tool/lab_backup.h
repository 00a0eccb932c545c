// SPDX-License-Identifier: Apache-2.0
// `zklab backup`: a snapshot of a lab streamed from one node's admin server
// (Apache 3.9's GET /commands/snapshot?streaming=true, which zkd answers;
// docs/backup-and-restore.md) into a file that `zklab restore` (lab_restore.h),
// `zkd restore` or Apache's tools read.
#pragma once

#include <filesystem>
#include <string>

#include "zklab/tool/lab_commands.h"

namespace zk::lab {

// The Authorization the lab's own commands send when told none: the lab's
// superuser (lab_membership.h), whom every lab's zoo.cfg names, so a backup
// passes whatever ACL the lab's "/" has.
std::string lab_admin_authorization();

struct BackupOptions {
  std::filesystem::path file;
  // The node (an id, leader, follower, random: node_spec.h); empty: of the
  // zkd nodes that serve and have an admin server, the one with the highest
  // zxid (the newest state), the leader among equals.
  std::string node;
  // The Authorization header ("digest user:password", "ip"); empty: none.
  std::string authorization = lab_admin_authorization();
  bool json = false;
};

// Streams the snapshot to options.file (written beside it as FILE.partial,
// then renamed: a failed backup leaves no FILE and an old FILE whole) and
// prints the node, the snapshot's last zxid and its size (one JSON object
// with options.json). kError, with why, when no node can be asked or the
// admin server refuses (401/403: with the hint to pass --auth).
LabExit lab_backup(const LabContext& ctx, const BackupOptions& options);

}  // namespace zk::lab
