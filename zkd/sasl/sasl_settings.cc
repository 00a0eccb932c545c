// SPDX-License-Identifier: Apache-2.0
#include "zkd/sasl/sasl_settings.h"

namespace zkd::sasl {
namespace {

using zk::java::kDigestLoginModule;
using zk::java::kKerberosLoginModule;
constexpr std::string_view kUserPrefix = "user_";

}  // namespace

std::string_view SaslSettings::mechanism_name() const {
  return mechanism == Mechanism::kGssapi ? "GSSAPI" : "DIGEST-MD5";
}

std::string SaslSettings::server_host() const {
  if (mechanism != Mechanism::kGssapi) return digest_realm;
  // service/host@REALM
  const size_t slash = principal.find('/');
  if (slash == std::string::npos) return {};
  return principal.substr(slash + 1, principal.find('@') - slash - 1);
}

StatusOr<SaslSettings> sasl_settings(std::string_view text, std::string_view section) {
  auto parsed = zk::java::parse_jaas(text);
  if (auto* error = std::get_if<std::string>(&parsed)) return Status::config(*error);
  const zk::java::JaasSection* found =
      zk::java::find_section(std::get<std::vector<zk::java::JaasSection>>(parsed), section);
  if (found == nullptr)
    return Status::config("the JAAS file has no section " + std::string(section));
  for (const zk::java::JaasModule& m : found->modules) {
    SaslSettings settings;
    if (m.class_name == kKerberosLoginModule) {
      settings.mechanism = SaslSettings::Mechanism::kGssapi;
      auto keytab = m.options.find("keyTab");
      auto principal = m.options.find("principal");
      if (keytab == m.options.end() || principal == m.options.end()) {
        return Status::config("the JAAS section " + std::string(section) + "'s " +
                              std::string(kKerberosLoginModule) +
                              " needs keyTab and principal options");
      }
      settings.keytab = keytab->second;
      settings.principal = principal->second;
      if (settings.server_host().empty()) {
        return Status::config("the JAAS section " + std::string(section) + "'s principal " +
                              settings.principal + " is not of the form service/host@REALM");
      }
      // As Apache: the service is the principal's ("zkquorum/host": zkquorum).
      settings.service = settings.principal.substr(0, settings.principal.find('/'));
      return settings;
    }
    if (m.class_name == kDigestLoginModule) {
      for (const auto& [key, value] : m.options) {
        if (key.starts_with(kUserPrefix) && key.size() > kUserPrefix.size()) {
          settings.digest_users[key.substr(kUserPrefix.size())] = value;
        }
      }
      return settings;
    }
  }
  return Status::config("the JAAS section " + std::string(section) +
                        " has no login module zkd serves (" + std::string(kDigestLoginModule) +
                        " or " + std::string(kKerberosLoginModule) + ")");
}

}  // namespace zkd::sasl
