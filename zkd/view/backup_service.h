// SPDX-License-Identifier: Apache-2.0
// What the admin server's snapshot and restore commands (Apache 3.9's
// SnapshotCommand and RestoreCommand) ask of a running server: whether an
// Authorization header's identity may run them, the state as an Apache
// snapshot file, and the state replaced by one. zkd::server's OnlineBackup
// implements it (docs/backup-and-restore.md).
//
// Threading: every call happens on the server's state thread; restore()'s
// `done` is called there too, once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace zkd::admin {

// Who a request says it is: the Authorization header split at its first
// space ("digest root:root_passwd" -> scheme "digest", auth
// "root:root_passwd"; "ip" and "x509" carry no auth), where it comes from,
// and the client certificate a TLS connection verified.
struct AdminCaller {
  std::string scheme;
  std::string auth;
  std::string peer_ip;       // as Boost.Asio writes the address
  std::string x509_subject;  // "" without a verified certificate
};

enum class AdminAccess {
  kGranted,           // the caller's ids have ALL on "/"
  kNotAuthenticated,  // no provider for the scheme, or it yields no id (401)
  kNotAuthorized,     // the ids lack a permission on "/" (403)
};

class BackupService {
 public:
  virtual ~BackupService() = default;

  // Apache's AuthRequest(ALL, "/"): the scheme's provider turns the caller
  // into ids (digest: its user:password; ip: its address; x509: its
  // certificate's subject), which must hold every permission of "/"'s ACL.
  virtual AdminAccess check_root_all(const AdminCaller& caller) const = 0;

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
