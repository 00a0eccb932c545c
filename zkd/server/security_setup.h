// SPDX-License-Identifier: Apache-2.0
// What authenticates clients, opened before the server starts: the TLS
// context of the client ports (zkd/net/tls_context.h), and the SASL server
// (zkd/sasl) set up from the JAAS file. Apache's JVM takes that file from
// the system property java.security.auth.login.config, which zkServer.sh
// passes in SERVER_JVMFLAGS; zkd reads the same flag from the same
// variables, or takes the path from its --jaas option.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "zkd/server/config.h"

namespace zkd::server {

// The JAAS file: `option` (zkd --jaas) when given, else
// java.security.auth.login.config from `server_jvmflags`, else from
// `jvmflags` (the environment's SERVER_JVMFLAGS and JVMFLAGS); "" for none.
std::string jaas_path(std::string_view option, std::string_view server_jvmflags,
                      std::string_view jvmflags);

// Opens config.sasl from the JAAS file at `path` ("" = none), and with
// quorum.auth.enableSasl config.quorum_sasl_server and the quorum's learner
// credentials from its QuorumServer and QuorumLearner sections (or those
// the saslLoginContext keys name). "" on success, else what is wrong,
// naming the file: unreadable, malformed (with its line), no SASL plugin,
// Kerberos sections naming two keytabs, or SASL asked for without a JAAS
// file. A file without a Server section leaves client SASL off (logged), as
// Apache starts then.
std::string setup_sasl(ServerConfig& config, const std::filesystem::path& path);

// Opens config.client_tls from config.client_tls_settings when a port
// serves TLS (secureClientPort, client.portUnification), and the quorum's
// contexts from config.quorum_tls_settings with sslQuorum or
// portUnification. "" on success, else what is wrong with a key or trust
// store (tls_context.h).
std::string setup_tls(ServerConfig& config);

}  // namespace zkd::server
