// SPDX-License-Identifier: Apache-2.0
// What authenticates clients, opened before the server starts: the TLS
// context of the client ports (zkd/net/tls_context.h), and the SASL server
// (zkd/sasl) set up from the JAAS file. Apache's JVM takes that file from
// the system property java.security.auth.login.config, which zkServer.sh
// passes in SERVER_JVMFLAGS; zkd reads the same flag from the same
// variables, or takes the path from its --jaas option.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "libzk/client/sasl.h"
#include "zkd/clock/clock.h"
#include "zkd/net/tls_context.h"
#include "zkd/sasl/sasl_server.h"
#include "zkd/server/config.h"
#include "zkd/status/status.h"

namespace zkd::server {

// The live objects that authenticate, opened from the parsed ServerConfig
// before the server starts and shared by the parts that need them (the
// client listeners, request dispatch, the peer links, the admin server).
// A null pointer: that side is off.
struct Security {
  // secureClientPort or client.portUnification: the client ports' TLS.
  std::shared_ptr<net::TlsServer> client_tls;
  // admin.forceHttps or admin.portUnification: the admin server's HTTPS,
  // with the ssl.quorum.* stores (as Apache's Jetty admin server).
  std::shared_ptr<net::TlsServer> admin_tls;
  // sslQuorum or portUnification: the quorum port's TLS (a peer must
  // present a certificate), and the dialing end's context.
  std::shared_ptr<net::TlsServer> quorum_tls_server;
  std::shared_ptr<boost::asio::ssl::context> quorum_tls_client;
  // The JAAS file's Server section; null: every SASL request fails with
  // AUTHFAILED.
  std::shared_ptr<const sasl::SaslServer> sasl;
  // quorum.auth.enableSasl: the server section checks the peers that dial
  // in; the learner's mechanism and DIGEST-MD5 user authenticate this server
  // to the peers it dials (GSSAPI's service and host per peer come from
  // quorum.auth.kerberos.servicePrincipal, quorum_sasl.h).
  std::shared_ptr<const sasl::SaslServer> quorum_sasl_server;
  zk::client::SaslOptions quorum_sasl_learner;
};

// The JAAS file: `option` (zkd --jaas) when given, else
// java.security.auth.login.config from `server_jvmflags`, else from
// `jvmflags` (the environment's SERVER_JVMFLAGS and JVMFLAGS); "" for none.
std::string jaas_path(std::string_view option, std::string_view server_jvmflags,
                      std::string_view jvmflags);

// Opens what `config` asks for: SASL from the JAAS file at `jaas` ("" =
// none) and TLS from the ssl.* and ssl.quorum.* stores. A kConfig error
// names the file and says what is wrong: a JAAS file unreadable, malformed
// (with its line), without a SASL plugin, with Kerberos sections naming two
// keytabs, or SASL asked for without a JAAS file; a key or trust store that
// cannot be used (tls_context.h). A JAAS file without a Server section
// leaves client SASL off (logged), as Apache starts then. `clock` (which
// must outlive what is opened) times the TLS contexts' reload checks and
// CRL caches: the server's Env clock.
StatusOr<Security> open_security(const ServerConfig& config, const std::filesystem::path& jaas,
                                 Clock& clock);

}  // namespace zkd::server
