// SPDX-License-Identifier: Apache-2.0
// SASL for zk::client (opcode 102), as Apache's Java client runs it when its
// JAAS file has a Client section: right after each connection's handshake,
// before any other request, the client and server trade GetSASLRequest /
// SetSASLResponse tokens until the mechanism completes; the connection then
// carries the id ("sasl", user). A server that answers AUTHFAILED ends the
// session (kAuthFailed), as Java's does. Mechanisms come from Cyrus SASL
// (libsasl2): DIGEST-MD5 (libsasl2-modules) with a user and password, GSSAPI
// (libsasl2-modules-gssapi-mit) with the Kerberos ticket in the caller's
// credential cache (kinit; KRB5CCNAME). Put the options in
// ClientOptions::sasl.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace zk::client {

struct SaslOptions {
  std::string mechanism = "DIGEST-MD5";  // or "GSSAPI"
  std::string username;                  // DIGEST-MD5
  std::string password;                  // DIGEST-MD5
  // The server's service name (Java's zookeeper.sasl.client.username).
  std::string service = "zookeeper";
  // The server name the mechanism is told: "" = what Apache's servers
  // expect, "zk-sasl-md5" for DIGEST-MD5 and the host dialed for GSSAPI
  // (the instance of its zookeeper/<host> principal).
  std::string server_name;
};

// One connection's exchange, in steps: first() is the token to send first;
// each server token goes to step(), which gives the next token to send, or
// nothing once the mechanism is complete.
class SaslClientExchange {
 public:
  struct Step {
    std::optional<std::string> token;  // to send; nothing: complete
    std::string error;                 // not empty: the exchange failed (why)
  };
  virtual ~SaslClientExchange() = default;
  virtual Step first() = 0;
  virtual Step step(std::string_view server_token) = 0;
};

// GSSAPI: has MIT Kerberos take this process's initial credentials from
// `keytab` (a JAAS Krb5LoginModule's keyTab) when its credential cache has
// none: the keytab's first principal (KRB5_CLIENT_KTNAME).
void use_kerberos_keytab(const std::string& keytab);

// A new exchange for a connection to `host`, or why none can be made (no
// such mechanism installed: names the Debian package).
std::variant<std::unique_ptr<SaslClientExchange>, std::string> start_sasl(
    const SaslOptions& options, const std::string& host);

}  // namespace zk::client
