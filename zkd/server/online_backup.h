// SPDX-License-Identifier: Apache-2.0
// The running server's side of the admin snapshot and restore commands
// (zkd/view/backup_service.h, zkd/admin/backup_commands.h;
// docs/backup-and-restore.md), and the access check of every authenticated
// admin command (zkd/view/root_access.h).
//
// Access: Apache's AuthRequest(ALL, "/"). The Authorization header's scheme
// picks the provider: digest turns "user:password" into its digest id (super
// when it is the superDigest), ip takes the request's address, x509 the
// subject of the certificate an HTTPS connection verified (super when it is
// X509AuthenticationProvider.superUser); the ids must pass the ACL check of
// "/" for every permission bit, as a client's would (tree/acl_check.h).
//
// Snapshot: the state as it is at the call, written on the state thread as
// an uncompressed Apache snapshot file (zkd/apache_files), in memory.
//
// Restore, standalone only (an ensemble is restored offline, every member
// from the same file: docs/quorum-loss-recovery.md; an online restore of
// one member would leave it unlike the others at the same zxid):
//   1. the file is read whole; a damaged one changes nothing;
//   2. client reads stop (WritePath::hold) and the writes in flight finish;
//   3. the new state goes to disk before the old log goes, as a learner's
//      SNAP install does (snapshot_install.h), at zxid Z = the largest of
//      the server's last zxid, the zxid a 3.9 file records and the newest
//      zxid a node of the file holds (so zxids never go back for clients
//      that saw either server);
//   4. the state is replaced, sessions follow the file's (Sessions::
//      state_replaced), every client connection closes so that clients
//      reconnect to the new state, and reads resume.
// A restore that cannot drain the writes within kDrainTimeout gives up and
// changes nothing.
//
// Threading: the state thread only; the server outlives every call's
// `done` (stop() drops a restore in progress without calling it).
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "zkd/clock/clock.h"
#include "zkd/server/client_registry.h"
#include "zkd/server/config.h"
#include "zkd/server/recovery.h"
#include "zkd/server/sessions.h"
#include "zkd/server/snapshot_service.h"
#include "zkd/server/write_path.h"
#include "zkd/storage/env.h"
#include "zkd/tree/database.h"
#include "zkd/view/backup_service.h"
#include "zkd/view/root_access.h"

namespace zkd::server {

class OnlineBackup final : public admin::RootAccess, public admin::BackupService {
 public:
  static constexpr std::chrono::milliseconds kDrainTimeout{10000};

  struct Parts {
    boost::asio::io_context& io;
    const ServerConfig& config;
    storage::Env& env;
    const StorageLayout& layout;
    tree::Database& db;
    WritePath& writes;
    SnapshotService& snapshots;
    ClientRegistry& clients;
    Sessions& sessions;
  };
  explicit OnlineBackup(Parts parts);
  // Drops a restore in progress (its reads resume; `done` is not called).
  void stop();

  admin::AdminAccess check_root_all(const admin::AdminCaller& caller) const override;
  Snapshot snapshot() override;
  void restore(std::string bytes, std::function<void(Restored)> done) override;

 private:
  struct Pending;
  // Step 2's wait: checks again every few ms until nothing is pending.
  void wait_for_drain(std::shared_ptr<Pending> pending);
  // Steps 3 and 4.
  Restored replace_state(Pending& pending);

  Parts parts_;
  std::unique_ptr<Timer> drain_timer_;
  std::shared_ptr<Pending> pending_;
};

}  // namespace zkd::server
