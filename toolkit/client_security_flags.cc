// SPDX-License-Identifier: Apache-2.0
#include "toolkit/client_security_flags.h"

#include "libzk/client/tls.h"
#include "libzk/java/jvm_flags.h"

namespace zk::toolkit {

namespace {

using zk::java::jvm_system_property;

// Why store `prefix` (zookeeper.ssl.keyStore or .trustStore) cannot be read,
// "" when it is PEM.
std::string non_pem(std::string_view flags, const std::string& prefix) {
  std::string type = jvm_system_property(flags, prefix + ".type");
  for (char& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string location = jvm_system_property(flags, prefix + ".location");
  const bool pem = type == "PEM" || (type.empty() && !location.ends_with(".jks") &&
                                     !location.ends_with(".p12") && !location.ends_with(".pfx"));
  if (pem) return {};
  return "CLIENT_JVMFLAGS: " + prefix + " " + location +
         " is not PEM; zk's tools read PEM stores: convert it with `openssl pkcs12 -in " +
         location + " -nodes -out store.pem` (a JKS store first with keytool -importkeystore " +
         "-deststoretype PKCS12)";
}

std::variant<ClientSecurity, std::string> tls_from_jvmflags(std::string_view flags) {
  ClientSecurity out;
  if (jvm_system_property(flags, "zookeeper.client.secure") != "true") return out;
  for (const char* store : {"zookeeper.ssl.keyStore", "zookeeper.ssl.trustStore"}) {
    if (auto why = non_pem(flags, store); !why.empty()) return why;
  }
  zk::client::TlsOptions options;
  options.ca_file = jvm_system_property(flags, "zookeeper.ssl.trustStore.location");
  options.cert_file = jvm_system_property(flags, "zookeeper.ssl.keyStore.location");
  options.key_password = jvm_system_property(flags, "zookeeper.ssl.keyStore.password");
  auto context = zk::client::make_tls_context(options);
  if (auto* why = std::get_if<std::string>(&context)) return "CLIENT_JVMFLAGS: " + *why;
  out.tls_context = std::get<0>(std::move(context));
  out.tls_verify_host = jvm_system_property(flags, "zookeeper.ssl.hostnameVerification") != "false";
  return out;
}

SaslChoice sasl_from_jvmflags(std::string_view flags) {
  const std::string jaas = jvm_system_property(flags, "java.security.auth.login.config");
  if (jaas.empty() || jvm_system_property(flags, "zookeeper.sasl.client") == "false") {
    return std::nullopt;
  }
  std::string section = jvm_system_property(flags, "zookeeper.sasl.clientconfig");
  std::string service = jvm_system_property(flags, "zookeeper.sasl.client.username");
  // As Java's client: a JAAS file without the section means no SASL.
  SaslChoice chosen = sasl_from_jaas(jaas, section.empty() ? "Client" : section,
                                     service.empty() ? "zookeeper" : service);
  if (auto* why = std::get_if<std::string>(&chosen)) return "CLIENT_JVMFLAGS: " + *why;
  return chosen;
}

}  // namespace

std::variant<ClientSecurity, std::string> client_security(const ClientTlsFlags& tls,
                                                          const ClientSaslFlags& sasl,
                                                          std::string_view client_jvmflags) {
  ClientSecurity out;
  if (tls.wanted()) {
    auto context = client_tls_context(tls);
    if (auto* why = std::get_if<std::string>(&context)) return "TLS: " + *why;
    out.tls_context = std::get<0>(std::move(context));
    out.tls_verify_host = !tls.no_verify_host;
  } else {
    auto from_env = tls_from_jvmflags(client_jvmflags);
    if (auto* why = std::get_if<std::string>(&from_env)) return *why;
    out = std::get<ClientSecurity>(std::move(from_env));
  }
  SaslChoice chosen = sasl.wanted() || !sasl.password_file.empty()
                          ? client_sasl_options(sasl)
                          : sasl_from_jvmflags(client_jvmflags);
  if (auto* why = std::get_if<std::string>(&chosen)) return "SASL: " + *why;
  out.sasl = std::get<0>(std::move(chosen));
  return out;
}

}  // namespace zk::toolkit
