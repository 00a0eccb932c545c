// SPDX-License-Identifier: Apache-2.0
// What zkd's SASL server does, taken from the JAAS file's server section the
// way Apache's ZooKeeperSaslServer reads it: a section holding
// org.apache.zookeeper.server.auth.DigestLoginModule serves DIGEST-MD5 to the
// users its user_<name>="<password>" options list; one holding
// com.sun.security.auth.module.Krb5LoginModule serves GSSAPI (Kerberos) with
// its keyTab and principal options.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "libzk/java/jaas_config.h"
#include "zkd/status/status.h"

namespace zkd::sasl {

// Apache's default section name (zookeeper.sasl.serverconfig).
inline constexpr std::string_view kServerSection = "Server";
// The realm and server name Apache's DIGEST-MD5 server uses (and clients expect).
inline constexpr std::string_view kDigestRealm = "zk-sasl-md5";
// The SASL service name, the first part of the server's Kerberos principal.
inline constexpr std::string_view kServiceName = "zookeeper";
// Between servers (quorum.auth.*), as Apache's QuorumAuth names them.
inline constexpr std::string_view kQuorumServiceName = "zookeeper-quorum";
inline constexpr std::string_view kQuorumDigestRealm = "zk-quorum-sasl-md5";

struct SaslSettings {
  enum class Mechanism { kDigestMd5, kGssapi } mechanism = Mechanism::kDigestMd5;
  std::map<std::string, std::string> digest_users;  // user -> password (DIGEST-MD5)
  std::string keytab;                               // GSSAPI: the keytab file
  std::string principal;                            // GSSAPI: "zookeeper/host@REALM"
  // What clients ask for: the service, and the DIGEST-MD5 realm (the server
  // name they are told); kQuorum* for the quorum's server.
  std::string service = std::string(kServiceName);
  std::string digest_realm = std::string(kDigestRealm);

  // The mechanism's name as SASL libraries spell it ("DIGEST-MD5", "GSSAPI").
  std::string_view mechanism_name() const;
  // The host the server authenticates as: the principal's instance for
  // GSSAPI, digest_realm for DIGEST-MD5.
  std::string server_host() const;
};

// The settings of `section` in `text`, or a message saying what is missing
// or unsupported ("the JAAS section Server has no login module zkd serves:
// ...").
StatusOr<SaslSettings> sasl_settings(std::string_view text,
                                     std::string_view section = kServerSection);

}  // namespace zkd::sasl
