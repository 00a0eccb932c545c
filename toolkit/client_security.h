// SPDX-License-Identifier: Apache-2.0
// What a tool's client sessions connect with: the TLS context and the SASL
// options (zk::client's ClientOptions::tls_context, tls_verify_host, sasl),
// chosen once (client_security_flags.h: from a tool's options or
// CLIENT_JVMFLAGS; zklab: from its lab) and given to every session. A light
// header: labs and workloads carry it without the client's or CLI11's.
#pragma once

#include <memory>
#include <optional>

#include "libzk/client/sasl.h"

namespace boost::asio::ssl {
class context;
}

namespace zk::client {
struct ClientOptions;
}

namespace zk::toolkit {

struct ClientSecurity {
  std::shared_ptr<boost::asio::ssl::context> tls_context;  // null: plaintext
  bool tls_verify_host = true;
  std::optional<zk::client::SaslOptions> sasl;  // nothing: no SASL
};

// Puts `security` into `options` (tls_context, tls_verify_host, sasl).
void apply_client_security(const ClientSecurity& security, zk::client::ClientOptions& options);

}  // namespace zk::toolkit
