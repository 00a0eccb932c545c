// SPDX-License-Identifier: Apache-2.0
// Apache's AuthRequest(ALL, "/") for the admin server's POST-style commands
// (snapshot, restore, shed_connections): who a request says it is, and
// whether those ids hold every permission of "/". zkd::server's
// OnlineBackup implements it (online_backup.h).
//
// Threading: every call happens on the server's state thread.
#pragma once

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

class RootAccess {
 public:
  virtual ~RootAccess() = default;
  // The scheme's provider turns the caller into ids (digest: its
  // user:password; ip: its address; x509: its certificate's subject), which
  // must hold every permission of "/"'s ACL.
  virtual AdminAccess check_root_all(const AdminCaller& caller) const = 0;
};

}  // namespace zkd::admin
