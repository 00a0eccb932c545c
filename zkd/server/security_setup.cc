// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/security_setup.h"

#include <fstream>
#include <sstream>
#include <variant>

#include "zkd/sasl/sasl_server.h"

namespace zkd::server {

std::string jvm_system_property(std::string_view flags, std::string_view name) {
  const std::string prefix = "-D" + std::string(name) + "=";
  std::string value;
  std::istringstream words{std::string(flags)};
  for (std::string word; words >> word;) {
    if (word.starts_with(prefix)) value = word.substr(prefix.size());
  }
  return value;
}

std::string jaas_path(std::string_view option, std::string_view server_jvmflags,
                      std::string_view jvmflags) {
  constexpr std::string_view kProperty = "java.security.auth.login.config";
  if (!option.empty()) return std::string(option);
  if (auto path = jvm_system_property(server_jvmflags, kProperty); !path.empty()) return path;
  return jvm_system_property(jvmflags, kProperty);
}

std::string setup_sasl(ServerConfig& config, const std::filesystem::path& path) {
  if (path.empty()) {
    if (!config.sasl_provider) return {};
    return "authProvider names " + std::string(kSaslProviderClass) +
           " but zkd has no JAAS file: pass zkd --jaas FILE, or "
           "-Djava.security.auth.login.config=FILE in SERVER_JVMFLAGS";
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot read the JAAS file " + path.string();
  std::ostringstream text;
  text << in.rdbuf();
  auto settings = sasl::sasl_settings(text.str());
  if (auto* error = std::get_if<std::string>(&settings)) {
    return "JAAS file " + path.string() + ": " + *error;
  }
  auto server = sasl::SaslServer::open(std::get<sasl::SaslSettings>(std::move(settings)));
  if (auto* error = std::get_if<std::string>(&server)) {
    return "JAAS file " + path.string() + ": " + *error;
  }
  config.sasl = std::move(std::get<std::unique_ptr<sasl::SaslServer>>(server));
  return {};
}

std::string setup_tls(ServerConfig& config) {
  if (config.secure_client_port != 0 || config.port_unification) {
    auto opened = net::TlsServer::open(config.client_tls_settings);
    if (auto* error = std::get_if<std::string>(&opened)) return *error;
    config.client_tls = std::get<std::shared_ptr<net::TlsServer>>(std::move(opened));
  }
  if (config.admin_enabled && config.admin_force_https) {
    net::TlsSettings settings = config.quorum_tls_settings;
    settings.client_auth = config.admin_need_client_auth ? net::TlsSettings::ClientAuth::kNeed
                                                         : net::TlsSettings::ClientAuth::kNone;
    auto admin = net::TlsServer::open(settings);
    if (auto* error = std::get_if<std::string>(&admin)) return "admin.forceHttps: " + *error;
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
