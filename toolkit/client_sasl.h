// SPDX-License-Identifier: Apache-2.0
// The SASL options every tool takes for its client sessions:
//   --sasl-user NAME            DIGEST-MD5 as NAME
//   --sasl-password-file FILE   NAME's password: the file's first line (a
//                               password on the command line would show in ps)
//   --sasl-mech MECH            DIGEST-MD5 (default) or GSSAPI (Kerberos: the
//                               ticket in the credential cache, kinit)
//   --jaas FILE                 the Client section of a JAAS file, as Apache's
//                               client reads it (see sasl_from_jaas)
// They turn into zk::client's SaslOptions (libzk/client/sasl.h).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "libzk/client/sasl.h"

namespace zk::toolkit {

struct ClientSaslFlags {
  std::string user;
  std::string password_file;
  std::string mechanism;
  std::string jaas;

  bool wanted() const { return !user.empty() || !mechanism.empty() || !jaas.empty(); }
};

// Registers the options above on `command`, in the "SASL" group.
void add_client_sasl_options(CLI::App& command, ClientSaslFlags& flags);

using SaslChoice = std::variant<std::optional<zk::client::SaslOptions>, std::string>;

// What the flags ask for: nothing for no SASL, or why they cannot be used
// (an unreadable password file, GSSAPI with a user, ...).
SaslChoice client_sasl_options(const ClientSaslFlags& flags);

// The SASL that section `section` of the JAAS file at `path` asks for, as
// Apache's client reads it: a DigestLoginModule's username and password
// options mean DIGEST-MD5; a Krb5LoginModule means GSSAPI (with its keyTab
// option, the client's credentials come from that keytab). `service` is the
// server's service name (zookeeper.sasl.client.username). Nothing when the
// file has no such section.
SaslChoice sasl_from_jaas(const std::string& path, std::string_view section,
                          std::string_view service = "zookeeper");

}  // namespace zk::toolkit
