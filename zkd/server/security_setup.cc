// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/security_setup.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <variant>

#include "libzk/java/jaas_config.h"
#include "libzk/java/jvm_flags.h"
#include "zkd/log/log.h"
#include "zkd/sasl/sasl_server.h"

namespace zkd::server {

std::string jaas_path(std::string_view option, std::string_view server_jvmflags,
                      std::string_view jvmflags) {
  constexpr std::string_view kProperty = "java.security.auth.login.config";
  if (!option.empty()) return std::string(option);
  if (auto path = zk::java::jvm_system_property(server_jvmflags, kProperty); !path.empty())
    return path;
  return zk::java::jvm_system_property(jvmflags, kProperty);
}

namespace {

constexpr std::string_view kNoJaas =
    " but zkd has no JAAS file: pass zkd --jaas FILE, or "
    "-Djava.security.auth.login.config=FILE in SERVER_JVMFLAGS";

// Whether the JAAS text has a section `name` (a file may hold only the
// quorum's sections).
bool has_section(const std::string& text, std::string_view name) {
  auto parsed = zk::java::parse_jaas(text);
  if (!std::holds_alternative<std::vector<zk::java::JaasSection>>(parsed)) {
    return true;  // errors later
  }
  return zk::java::find_section(std::get<std::vector<zk::java::JaasSection>>(parsed), name) !=
         nullptr;
}

// config.quorum_sasl_learner from the learner section: a DIGEST-MD5 user,
// or Kerberos, whose keytab MIT Kerberos then takes this process's initial
// credentials from (into a private cache). "" or what is wrong.
std::string setup_quorum_learner(ServerConfig& config, const std::string& text) {
  const auto parsed = zk::java::parse_jaas(text);
  const zk::java::JaasSection* learner = zk::java::find_section(
      std::get<std::vector<zk::java::JaasSection>>(parsed), config.quorum_sasl_learner_section);
  if (learner == nullptr) {
    return "the JAAS file has no section " + config.quorum_sasl_learner_section +
           " (quorum.auth.learner.saslLoginContext)";
  }
  zk::client::SaslOptions& options = config.quorum_sasl_learner;
  for (const auto& module : learner->modules) {
    if (module.class_name == zk::java::kKerberosLoginModule) {
      options.mechanism = "GSSAPI";
      if (auto keytab = module.options.find("keyTab"); keytab != module.options.end()) {
        zk::client::use_kerberos_keytab(keytab->second);
        ::setenv("KRB5CCNAME", "MEMORY:zkd-quorum-learner", 1);
      }
      return {};
    }
    if (module.class_name != zk::java::kDigestLoginModule) continue;
    const auto credentials = zk::java::digest_credentials(module);
    if (!credentials) break;
    options.username = credentials->username;
    options.password = credentials->password;
    options.service = std::string(sasl::kQuorumServiceName);
    options.server_name = std::string(sasl::kQuorumDigestRealm);
    return {};
  }
  return "the JAAS section " + config.quorum_sasl_learner_section + " needs a " +
         std::string(zk::java::kDigestLoginModule) + " with username and password options, or a " +
         std::string(zk::java::kKerberosLoginModule);
}

// config.quorum_sasl_server from the server section (DIGEST-MD5 users or a
// Kerberos keytab) and config.quorum_sasl_learner. "" or what is wrong.
std::string setup_quorum_sasl(ServerConfig& config, const std::string& text) {
  auto settings = sasl::sasl_settings(text, config.quorum_sasl_server_section);
  if (auto* error = std::get_if<std::string>(&settings)) return *error;
  auto& server_settings = std::get<sasl::SaslSettings>(settings);
  if (server_settings.mechanism == sasl::SaslSettings::Mechanism::kDigestMd5) {
    server_settings.service = std::string(sasl::kQuorumServiceName);
    server_settings.digest_realm = std::string(sasl::kQuorumDigestRealm);
  }
  auto server = sasl::SaslServer::open(std::move(server_settings));
  if (auto* error = std::get_if<std::string>(&server)) return *error;
  config.quorum_sasl_server = std::move(std::get<std::unique_ptr<sasl::SaslServer>>(server));
  return setup_quorum_learner(config, text);
}

// MIT Kerberos's acceptor reads one keytab per process.
std::string check_one_keytab(const ServerConfig& config) {
  if (!config.sasl || !config.quorum_sasl_server) return {};
  const sasl::SaslSettings& clients = config.sasl->settings();
  const sasl::SaslSettings& peers = config.quorum_sasl_server->settings();
  if (clients.mechanism != sasl::SaslSettings::Mechanism::kGssapi ||
      peers.mechanism != sasl::SaslSettings::Mechanism::kGssapi || clients.keytab == peers.keytab) {
    return {};
  }
  return "the Server and " + config.quorum_sasl_server_section + " sections name different " +
         "keytabs (" + clients.keytab + ", " + peers.keytab +
         "); zkd's Kerberos reads one: merge them (ktutil: rkt each, then wkt) and name the result "
         "in both";
}

}  // namespace

std::string setup_sasl(ServerConfig& config, const std::filesystem::path& path) {
  if (path.empty()) {
    if (config.sasl_provider) {
      return "authProvider names " + std::string(kSaslProviderClass) + std::string(kNoJaas);
    }
    if (config.quorum_sasl) return "quorum.auth.enableSasl is true" + std::string(kNoJaas);
    return {};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot read the JAAS file " + path.string();
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (config.quorum_sasl) {
    if (auto why = setup_quorum_sasl(config, text); !why.empty()) {
      return "JAAS file " + path.string() + ": " + why;
    }
    // A file for the quorum alone serves clients no SASL.
    if (!config.sasl_provider && !has_section(text, sasl::kServerSection)) return {};
  }
  if (!has_section(text, sasl::kServerSection)) {
    // As Apache's configureSaslLogin: a readable file without the section
    // leaves client SASL off (kazoo's test harness passes an empty one).
    net::log_warn("JAAS file ", path.string(), " has no section ", sasl::kServerSection,
                  ": clients cannot authenticate with SASL (their SASL requests are refused)");
    return {};
  }
  auto settings = sasl::sasl_settings(text);
  if (auto* error = std::get_if<std::string>(&settings)) {
    return "JAAS file " + path.string() + ": " + *error;
  }
  auto server = sasl::SaslServer::open(std::get<sasl::SaslSettings>(std::move(settings)));
  if (auto* error = std::get_if<std::string>(&server)) {
    return "JAAS file " + path.string() + ": " + *error;
  }
  config.sasl = std::move(std::get<std::unique_ptr<sasl::SaslServer>>(server));
  if (auto why = check_one_keytab(config); !why.empty())
    return "JAAS file " + path.string() + ": " + why;
  return {};
}

std::string setup_tls(ServerConfig& config) {
  if (config.secure_client_port != 0 || config.port_unification) {
    auto opened = net::TlsServer::open(config.client_tls_settings);
    if (auto* error = std::get_if<std::string>(&opened)) return *error;
    config.client_tls = std::get<std::shared_ptr<net::TlsServer>>(std::move(opened));
  }
  if (config.admin_enabled && (config.admin_force_https || config.admin_port_unification)) {
    net::TlsSettings settings = config.quorum_tls_settings;
    settings.client_auth = config.admin_need_client_auth ? net::TlsSettings::ClientAuth::kNeed
                                                         : net::TlsSettings::ClientAuth::kNone;
    auto admin = net::TlsServer::open(settings);
    if (auto* error = std::get_if<std::string>(&admin)) return "admin TLS: " + *error;
    config.admin_tls = std::get<std::shared_ptr<net::TlsServer>>(std::move(admin));
  }
  if (config.ssl_quorum || config.quorum_port_unification) {
    // A peer must present a certificate whatever ssl.quorum.clientAuth says.
    net::TlsSettings settings = config.quorum_tls_settings;
    settings.client_auth = net::TlsSettings::ClientAuth::kNeed;
    auto server = net::TlsServer::open(settings);
    if (auto* error = std::get_if<std::string>(&server)) return "ssl.quorum: " + *error;
    config.quorum_tls_server = std::get<std::shared_ptr<net::TlsServer>>(std::move(server));
    auto client = net::make_client_context(settings);
    if (auto* error = std::get_if<std::string>(&client)) return "ssl.quorum: " + *error;
    config.quorum_tls_client =
        std::get<std::shared_ptr<boost::asio::ssl::context>>(std::move(client));
  }
  return {};
}

}  // namespace zkd::server
