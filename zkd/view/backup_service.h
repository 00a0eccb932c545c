// SPDX-License-Identifier: Apache-2.0
// What the admin server's snapshot and restore commands (Apache 3.9's
// SnapshotCommand and RestoreCommand) ask of a running server, once the
// caller passed root_access.h's check: the state as an Apache snapshot
// file, and the state replaced by one. zkd::server's OnlineBackup
// implements it (docs/backup-and-restore.md).
//
// Threading: every call happens on the server's state thread; restore()'s
// `done` is called there too, once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace zkd::admin {

class BackupService {
 public:
  virtual ~BackupService() = default;

  struct Snapshot {
    int64_t zxid = -1;  // the last txn the state holds
    std::string bytes;  // an uncompressed Apache snapshot file
    std::string error;  // "" when taken
  };
  // The whole state as Apache's snapshot file (sessions, ACLs, nodes, seal).
  virtual Snapshot snapshot() = 0;

  struct Restored {
    int64_t zxid = -1;  // the zxid the server's state now has
    std::string error;  // "" when restored
  };
  // Replaces the server's whole state (tree and sessions) with an Apache
  // snapshot file's, durably, and calls `done`; an error leaves the state
  // as it was.
  virtual void restore(std::string bytes, std::function<void(Restored)> done) = 0;
};

}  // namespace zkd::admin
