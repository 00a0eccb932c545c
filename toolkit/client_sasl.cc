// SPDX-License-Identifier: Apache-2.0
#include "toolkit/client_sasl.h"

#include <fstream>
#include <sstream>

#include "libzk/java/jaas_config.h"

namespace zk::toolkit {

namespace {

using zk::java::kDigestLoginModule;
using zk::java::kKerberosLoginModule;

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

void add_client_sasl_options(CLI::App& command, ClientSaslFlags& flags) {
  const std::string group = "SASL";
  command.add_option("--sasl-user", flags.user, "authenticate with SASL DIGEST-MD5 as NAME")
      ->type_name("NAME")
      ->group(group);
  command
      .add_option("--sasl-password-file", flags.password_file,
                  "the password of --sasl-user: FILE's first line")
      ->type_name("FILE")
      ->check(CLI::ExistingFile)
      ->group(group);
  command
      .add_option("--sasl-mech", flags.mechanism,
                  "DIGEST-MD5 (default) or GSSAPI (Kerberos: the ticket from kinit)")
      ->type_name("MECH")
      ->check(CLI::IsMember({"DIGEST-MD5", "GSSAPI"}))
      ->group(group);
  command.add_option("--jaas", flags.jaas, "SASL as the Client section of a JAAS file says")
      ->type_name("FILE")
      ->check(CLI::ExistingFile)
      ->group(group);
}

SaslChoice client_sasl_options(const ClientSaslFlags& flags) {
  if (!flags.wanted()) {
    if (!flags.password_file.empty()) return "--sasl-password-file needs --sasl-user";
    return std::nullopt;
  }
  if (!flags.jaas.empty()) {
    if (!flags.user.empty() || !flags.mechanism.empty()) {
      return "--jaas names the SASL user and mechanism: no --sasl-user or --sasl-mech with it";
    }
    SaslChoice chosen = sasl_from_jaas(flags.jaas, "Client");
    if (auto* none = std::get_if<0>(&chosen); none != nullptr && !*none) {
      return "the JAAS file " + flags.jaas + " has no Client section";
    }
    return chosen;
  }
  zk::client::SaslOptions options;
  options.mechanism = flags.mechanism.empty() ? "DIGEST-MD5" : flags.mechanism;
  if (options.mechanism == "GSSAPI") {
    if (!flags.user.empty() || !flags.password_file.empty()) {
      return "GSSAPI takes the user from the Kerberos ticket: no --sasl-user or "
             "--sasl-password-file with it";
    }
    return options;
  }
  if (flags.user.empty()) return "DIGEST-MD5 needs --sasl-user";
  if (flags.password_file.empty()) return "--sasl-user needs --sasl-password-file";
  auto text = read_text(flags.password_file);
  if (!text) return "cannot read " + flags.password_file;
  options.username = flags.user;
  options.password = text->substr(0, text->find('\n'));
  return options;
}

SaslChoice sasl_from_jaas(const std::string& path, std::string_view section,
                          std::string_view service) {
  auto text = read_text(path);
  if (!text) return "cannot read the JAAS file " + path;
  auto parsed = zk::java::parse_jaas(*text);
  if (auto* error = std::get_if<std::string>(&parsed)) return path + ": " + *error;
  const zk::java::JaasSection* found =
      zk::java::find_section(std::get<std::vector<zk::java::JaasSection>>(parsed), section);
  if (found == nullptr) return std::nullopt;
  for (const auto& module : found->modules) {
    zk::client::SaslOptions options;
    options.service = std::string(service);
    if (module.class_name == kDigestLoginModule) {
      const auto credentials = zk::java::digest_credentials(module);
      if (!credentials) {
        return path + ": the " + std::string(section) +
               " section's DigestLoginModule needs username and password options";
      }
      options.username = credentials->username;
      options.password = credentials->password;
      return options;
    }
    if (module.class_name == kKerberosLoginModule) {
      options.mechanism = "GSSAPI";
      if (auto keytab = module.options.find("keyTab"); keytab != module.options.end()) {
        zk::client::use_kerberos_keytab(keytab->second);
      }
      return options;
    }
  }
  return path + ": the " + std::string(section) + " section has no login module zk knows (" +
         std::string(kDigestLoginModule) + " or " + std::string(kKerberosLoginModule) + ")";
}

}  // namespace zk::toolkit
