// SPDX-License-Identifier: Apache-2.0
// zkd's SASL server (opcode 102, §10.6 of docs/wire-protocol.md): Cyrus SASL
// (libsasl2, with the DIGEST-MD5 and GSSAPI plugins of libsasl2-modules and
// libsasl2-modules-gssapi-mit) running the mechanism SaslSettings names.
// DIGEST-MD5 passwords come from the settings through an auxiliary property
// plugin of zkd's own, never from a sasldb file.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "zkd/sasl/sasl_settings.h"

namespace zkd::sasl {

// One client's authentication exchange: the tokens of successive SASL
// requests go to step() in turn.
class SaslExchange {
 public:
  struct Step {
    enum class Outcome { kContinue, kComplete, kFailed } outcome = Outcome::kFailed;
    // For the client: a challenge, or the final data; nothing (a null
    // buffer on the wire, as Apache sends) when complete without data, or
    // failed.
    std::optional<std::string> token;
    // kComplete: who the client proved to be: the authenticated identity,
    // never the authorization id it asked for (Apache's server takes the
    // same); a Kerberos principal with its realm (user@REALM).
    std::string authenticated_id;
    std::string error;  // kFailed: why, for the log
  };

  virtual ~SaslExchange() = default;
  // The next step. After kComplete or kFailed the exchange is over: any
  // further call fails.
  virtual Step step(std::string_view client_token) = 0;
};

// An exchange whose first step fails with `why`: for a server without SASL.
std::unique_ptr<SaslExchange> refused_exchange(std::string why);

class SaslServer {
 public:
  // Starts Cyrus SASL (once per process) for `settings`. The passwords of
  // the last server opened for a realm, and the keytab of the last opened,
  // are the ones every exchange uses (one SASL configuration per process, as
  // a JVM has one JAAS file; the clients' and the quorum's realms differ). An error
  // says what is missing ("no DIGEST-MD5 plugin: install libsasl2-modules").
  static StatusOr<std::unique_ptr<SaslServer>> open(SaslSettings settings);

  const SaslSettings& settings() const { return settings_; }
  // A new exchange for one client connection.
  std::unique_ptr<SaslExchange> start() const;

 private:
  explicit SaslServer(SaslSettings settings) : settings_(std::move(settings)) {}
  SaslSettings settings_;
};

}  // namespace zkd::sasl
