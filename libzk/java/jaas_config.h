// SPDX-License-Identifier: Apache-2.0
// The JAAS login configuration file Apache ZooKeeper reads for SASL (the file
// -Djava.security.auth.login.config names): named sections, each a list of
// login modules with a control flag and options:
//
//   Server {
//     org.apache.zookeeper.server.auth.DigestLoginModule required
//       user_super="adminsecret"
//       user_bob="bobsecret";
//   };
//
// Comments (// to the end of the line, /* ... */) and blank space are ignored;
// option values are quoted strings or bare words. This parser reads the text
// only; what a module means is its reader's business (zkd's SASL settings,
// the tools' client SASL options).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace zk::java {

struct JaasModule {
  std::string class_name;  // "org.apache.zookeeper.server.auth.DigestLoginModule"
  std::string flag;        // required, requisite, sufficient or optional
  std::map<std::string, std::string> options;  // later duplicates win
};

struct JaasSection {
  std::string name;
  std::vector<JaasModule> modules;
};

// The sections in file order, or a message naming the line of the first
// syntax error ("line 3: expected '{' after the section name").
std::variant<std::vector<JaasSection>, std::string> parse_jaas(std::string_view text);

// The login modules zk reads, as Apache names them.
inline constexpr std::string_view kDigestLoginModule =
    "org.apache.zookeeper.server.auth.DigestLoginModule";
inline constexpr std::string_view kKerberosLoginModule =
    "com.sun.security.auth.module.Krb5LoginModule";

// The section called `name`; null when there is none.
const JaasSection* find_section(const std::vector<JaasSection>& sections, std::string_view name);

// What a DigestLoginModule of a client's section (Client, QuorumLearner)
// authenticates with: its username and password options; nothing when
// either is missing.
struct DigestCredentials {
  std::string username;
  std::string password;
};
std::optional<DigestCredentials> digest_credentials(const JaasModule& module);

}  // namespace zk::java
