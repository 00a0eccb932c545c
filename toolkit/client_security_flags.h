// SPDX-License-Identifier: Apache-2.0
// The security of the tools' client sessions from their options: TLS
// (client_tls.h) and SASL (client_sasl.h). Each that a tool's options leave
// unset comes from CLIENT_JVMFLAGS when that holds Apache's client system
// properties, as zkCli.sh passes them to Java:
//   -Dzookeeper.client.secure=true              TLS, with
//   -Dzookeeper.ssl.trustStore.location=FILE    PEM CAs (--tls-ca)
//   -Dzookeeper.ssl.keyStore.location=FILE      PEM key and certificate (--tls-cert)
//   -Dzookeeper.ssl.keyStore.password=PASSWORD  the key's password
//   -Dzookeeper.ssl.hostnameVerification=false  --tls-no-verify-host
//   -Djava.security.auth.login.config=FILE      SASL as FILE's Client section says
//   -Dzookeeper.sasl.clientconfig=SECTION       ... SECTION instead of Client
//   -Dzookeeper.sasl.client=false               no SASL
//   -Dzookeeper.sasl.client.username=NAME       the server's service name
// Stores must be PEM (zookeeper.ssl.*.type PEM or unset): others are
// refused with the openssl command that converts them.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "toolkit/client_sasl.h"
#include "toolkit/client_security.h"
#include "toolkit/client_tls.h"

namespace zk::toolkit {

// TLS and SASL from the flags, else from `client_jvmflags` (the environment's
// CLIENT_JVMFLAGS); or why they cannot be used.
std::variant<ClientSecurity, std::string> client_security(const ClientTlsFlags& tls,
                                                          const ClientSaslFlags& sasl,
                                                          std::string_view client_jvmflags);

}  // namespace zk::toolkit
