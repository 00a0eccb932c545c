// SPDX-License-Identifier: Apache-2.0
// The JAAS file Apache reads (jaas_config.h) and the SASL settings taken from
// its Server section (sasl_settings.h).
#include "libzk/java/jaas_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "zkd/sasl/sasl_settings.h"

namespace zkd::sasl {
namespace {

using ::testing::HasSubstr;
using zk::java::JaasSection;
using zk::java::parse_jaas;

constexpr std::string_view kApacheExample = R"(
// Apache's documented DIGEST-MD5 example, with comments of both kinds.
Server {
       org.apache.zookeeper.server.auth.DigestLoginModule required
       user_super="adminsecret"   /* the super user */
       user_bob="bobsecret";
};
Client {
       org.apache.zookeeper.server.auth.DigestLoginModule required
       username="bob"
       password="bobsecret";
};
)";

TEST(JaasConfig, ReadsSectionsModulesAndOptions) {
  auto parsed = parse_jaas(kApacheExample);
  ASSERT_TRUE(std::holds_alternative<std::vector<JaasSection>>(parsed))
      << std::get<std::string>(parsed);
  const auto& sections = std::get<std::vector<JaasSection>>(parsed);
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[0].name, "Server");
  ASSERT_EQ(sections[0].modules.size(), 1u);
  EXPECT_EQ(sections[0].modules[0].class_name,
            "org.apache.zookeeper.server.auth.DigestLoginModule");
  EXPECT_EQ(sections[0].modules[0].flag, "required");
  EXPECT_EQ(sections[0].modules[0].options,
            (std::map<std::string, std::string>{{"user_bob", "bobsecret"},
                                                {"user_super", "adminsecret"}}));
  EXPECT_EQ(sections[1].modules[0].options.at("username"), "bob");
}

TEST(JaasConfig, SyntaxErrorsNameTheLine) {
  auto error = [](std::string_view text) {
    auto parsed = parse_jaas(text);
    return std::holds_alternative<std::string>(parsed) ? std::get<std::string>(parsed) : "";
  };
  EXPECT_EQ(error("Server\n  org.x required;\n};"), "line 2: expected '{' after the section name");
  EXPECT_EQ(error("Server {\n  m required\n  user_a \"pw\";\n};"),
            "line 3: expected '=' after option user_a");
  EXPECT_EQ(error("Server {\n  m required user_a=\"pw;\n};"),
            "line 2: a quoted value does not end");
  EXPECT_EQ(error("Server {\n  m required;\n}"), "line 3: expected ';' after the section's '}'");
  EXPECT_EQ(error("Server {\n  m;\n};"),
            "line 2: expected a control flag (required, requisite, sufficient, optional)");
}

TEST(SaslSettings, DigestLoginModuleServesItsUsers) {
  auto settings = sasl_settings(kApacheExample);
  ASSERT_TRUE(settings.ok()) << settings.status().message();
  const SaslSettings& s = *settings;
  EXPECT_EQ(s.mechanism_name(), "DIGEST-MD5");
  EXPECT_EQ(s.server_host(), "zk-sasl-md5");
  EXPECT_EQ(s.digest_users,
            (std::map<std::string, std::string>{{"bob", "bobsecret"}, {"super", "adminsecret"}}));
}

TEST(SaslSettings, Krb5LoginModuleServesGssapiWithItsKeytab) {
  auto settings = sasl_settings(R"(Server {
    com.sun.security.auth.module.Krb5LoginModule required
      useKeyTab=true keyTab="/etc/zk/zk.keytab" storeKey=true
      principal="zookeeper/zk1.example.com@EXAMPLE.COM";
  };)");
  ASSERT_TRUE(settings.ok()) << settings.status().message();
  const SaslSettings& s = *settings;
  EXPECT_EQ(s.mechanism_name(), "GSSAPI");
  EXPECT_EQ(s.keytab, "/etc/zk/zk.keytab");
  EXPECT_EQ(s.server_host(), "zk1.example.com");
}

TEST(SaslSettings, WhatZkdCannotServeIsSaid) {
  auto error = [](std::string_view text) {
    auto settings = sasl_settings(text);
    return settings.ok() ? "" : settings.status().message();
  };
  EXPECT_EQ(error("Client { m required; };"), "the JAAS file has no section Server");
  EXPECT_THAT(error("Server { org.example.Ldap required; };"),
              HasSubstr("the JAAS section Server has no login module zkd serves"));
  EXPECT_THAT(error("Server { com.sun.security.auth.module.Krb5LoginModule required; };"),
              HasSubstr("needs keyTab and principal options"));
  EXPECT_THAT(error(R"(Server { com.sun.security.auth.module.Krb5LoginModule required
                      keyTab="/k" principal="zookeeper@R"; };)"),
              HasSubstr("is not of the form service/host@REALM"));
}

}  // namespace
}  // namespace zkd::sasl
