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

// security.quorum_sasl_learner from the learner section: a DIGEST-MD5 user,
// or Kerberos, whose keytab MIT Kerberos then takes this process's initial
// credentials from (into a private cache).
Status open_quorum_learner(const ServerConfig& config, const std::string& text,
                           Security& security) {
  const auto parsed = zk::java::parse_jaas(text);
  const zk::java::JaasSection* learner = zk::java::find_section(
      std::get<std::vector<zk::java::JaasSection>>(parsed), config.quorum_sasl_learner_section);
  if (learner == nullptr) {
    return Status::config("the JAAS file has no section " + config.quorum_sasl_learner_section +
                          " (quorum.auth.learner.saslLoginContext)");
  }
  zk::client::SaslOptions& options = security.quorum_sasl_learner;
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
  return Status::config("the JAAS section " + config.quorum_sasl_learner_section + " needs a " +
                        std::string(zk::java::kDigestLoginModule) +
                        " with username and password options, or a " +
                        std::string(zk::java::kKerberosLoginModule));
}

// security.quorum_sasl_server from the server section (DIGEST-MD5 users or
// a Kerberos keytab), and security.quorum_sasl_learner.
Status open_quorum_sasl(const ServerConfig& config, const std::string& text, Security& security) {
  auto settings = sasl::sasl_settings(text, config.quorum_sasl_server_section);
  if (!settings.ok()) return settings.status();
  if (settings->mechanism == sasl::SaslSettings::Mechanism::kDigestMd5) {
    settings->service = std::string(sasl::kQuorumServiceName);
    settings->digest_realm = std::string(sasl::kQuorumDigestRealm);
  }
  auto server = sasl::SaslServer::open(*std::move(settings));
  if (!server.ok()) return server.status();
  security.quorum_sasl_server = *std::move(server);
  return open_quorum_learner(config, text, security);
}

// MIT Kerberos's acceptor reads one keytab per process.
Status check_one_keytab(const ServerConfig& config, const Security& security) {
  if (!security.sasl || !security.quorum_sasl_server) return {};
  const sasl::SaslSettings& clients = security.sasl->settings();
  const sasl::SaslSettings& peers = security.quorum_sasl_server->settings();
  if (clients.mechanism != sasl::SaslSettings::Mechanism::kGssapi ||
      peers.mechanism != sasl::SaslSettings::Mechanism::kGssapi || clients.keytab == peers.keytab) {
    return {};
  }
  return Status::config(
      "the Server and " + config.quorum_sasl_server_section + " sections name different " +
      "keytabs (" + clients.keytab + ", " + peers.keytab +
      "); zkd's Kerberos reads one: merge them (ktutil: rkt each, then wkt) and name the result "
      "in both");
}

Status open_sasl(const ServerConfig& config, const std::filesystem::path& path,
                 Security& security) {
  if (path.empty()) {
    if (config.quorum_sasl) {
      return Status::config("quorum.auth.enableSasl is true" + std::string(kNoJaas));
    }
    if (config.sasl_provider) {
      // As Apache: the server starts and SASL logins fail (Kafka-era
      // configs carry the provider line without a JAAS file).
      net::log_warn("authProvider names ", kSaslProviderClass, std::string_view(kNoJaas),
                    "; clients cannot authenticate with SASL (their SASL requests are refused)");
    }
    return {};
  }
  const auto in_jaas_file = [&path](const Status& s) {
    return Status::config("JAAS file " + path.string() + ": " + s.message());
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::config("cannot read the JAAS file " + path.string());
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (config.quorum_sasl) {
    if (Status s = open_quorum_sasl(config, text, security); !s.ok()) return in_jaas_file(s);
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
  if (!settings.ok()) return in_jaas_file(settings.status());
  auto server = sasl::SaslServer::open(*std::move(settings));
  if (!server.ok()) return in_jaas_file(server.status());
  security.sasl = *std::move(server);
  if (Status s = check_one_keytab(config, security); !s.ok()) return in_jaas_file(s);
  return {};
}

// `what`: a TLS setup error, prefixed with the side it concerns.
Status for_side(std::string_view side, const Status& what) {
  return Status::config(std::string(side) + what.message());
}

Status open_tls(const ServerConfig& config, Clock& clock, Security& security) {
  if (config.secure_client_port != 0 || config.port_unification) {
    net::TlsSettings settings = config.client_tls_settings;
    settings.clock = &clock;
    auto opened = net::TlsServer::open(settings);
    if (!opened.ok()) return opened.status();
    security.client_tls = *std::move(opened);
  }
  if (config.admin_enabled && (config.admin_force_https || config.admin_port_unification)) {
    net::TlsSettings settings = config.quorum_tls_settings;
    settings.clock = &clock;
    settings.client_auth = config.admin_need_client_auth ? net::TlsSettings::ClientAuth::kNeed
                                                         : net::TlsSettings::ClientAuth::kNone;
    auto admin = net::TlsServer::open(settings);
    if (!admin.ok()) return for_side("admin TLS: ", admin.status());
    security.admin_tls = *std::move(admin);
  }
  if (config.ssl_quorum || config.quorum_port_unification) {
    // A peer must present a certificate whatever ssl.quorum.clientAuth says.
    net::TlsSettings settings = config.quorum_tls_settings;
    settings.clock = &clock;
    settings.client_auth = net::TlsSettings::ClientAuth::kNeed;
    auto server = net::TlsServer::open(settings);
    if (!server.ok()) return for_side("ssl.quorum: ", server.status());
    security.quorum_tls_server = *std::move(server);
    auto client = net::make_client_context(settings);
    if (!client.ok()) return for_side("ssl.quorum: ", client.status());
    security.quorum_tls_client = *std::move(client);
  }
  return {};
}

}  // namespace

StatusOr<Security> open_security(const ServerConfig& config, const std::filesystem::path& jaas,
                                 Clock& clock) {
  Security security;
  if (Status s = open_sasl(config, jaas, security); !s.ok()) return s;
  if (Status s = open_tls(config, clock, security); !s.ok()) return s;
  return security;
}

}  // namespace zkd::server
