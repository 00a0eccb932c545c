// SPDX-License-Identifier: Apache-2.0
// The tools' client security options (toolkit/client_security.h,
// client_sasl.h): SASL from the flags, from a JAAS file's Client section as
// Apache's client reads it, and both TLS and SASL from CLIENT_JVMFLAGS as
// zkCli.sh passes them; every wrong combination says why.
#include "toolkit/client_security_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/common/temp_dir.h"

namespace zk::toolkit {
namespace {

using ::testing::HasSubstr;

class ClientSecurityTest : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    return dir_.write(name, text);
  }
  std::string jaas() {
    return write("jaas.conf",
                 "Server { org.apache.zookeeper.server.auth.DigestLoginModule required "
                 "user_bob=\"x\"; };\n"
                 "Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n"
                 "  username=\"bob\"\n  password=\"bobsecret\";\n};\n"
                 "Kerberos { com.sun.security.auth.module.Krb5LoginModule required "
                 "useTicketCache=true; };\n");
  }

  zk::test::TempDir dir_{"zk-client-security"};
};

std::optional<zk::client::SaslOptions> chosen(const SaslChoice& choice) {
  if (auto* why = std::get_if<std::string>(&choice)) {
    ADD_FAILURE() << *why;
    return std::nullopt;
  }
  return std::get<0>(choice);
}

std::string refused(const SaslChoice& choice) {
  auto* why = std::get_if<std::string>(&choice);
  return why == nullptr ? "(accepted)" : *why;
}

TEST_F(ClientSecurityTest, TheJaasClientSectionGivesDigestOrKerberos) {
  const std::string path = jaas();
  auto digest = chosen(sasl_from_jaas(path, "Client"));
  ASSERT_TRUE(digest);
  EXPECT_EQ(digest->mechanism, "DIGEST-MD5");
  EXPECT_EQ(digest->username, "bob");
  EXPECT_EQ(digest->password, "bobsecret");
  EXPECT_EQ(digest->service, "zookeeper");

  auto kerberos = chosen(sasl_from_jaas(path, "Kerberos", "zk"));
  ASSERT_TRUE(kerberos);
  EXPECT_EQ(kerberos->mechanism, "GSSAPI");
  EXPECT_EQ(kerberos->service, "zk");

  EXPECT_FALSE(chosen(sasl_from_jaas(path, "Other")));  // no such section: no SASL
  EXPECT_THAT(refused(sasl_from_jaas(write("bad.conf", "Client {"), "Client")),
              HasSubstr("bad.conf: line"));
}

TEST_F(ClientSecurityTest, FlagsNeedTheirCompanions) {
  ClientSaslFlags flags;
  EXPECT_FALSE(chosen(client_sasl_options(flags)));

  flags.user = "bob";
  EXPECT_EQ(refused(client_sasl_options(flags)), "--sasl-user needs --sasl-password-file");
  flags.password_file = write("pw", "bobsecret\nignored\n");
  auto digest = chosen(client_sasl_options(flags));
  ASSERT_TRUE(digest);
  EXPECT_EQ(digest->password, "bobsecret");

  flags.mechanism = "GSSAPI";
  EXPECT_THAT(refused(client_sasl_options(flags)), HasSubstr("no --sasl-user"));

  ClientSaslFlags with_jaas;
  with_jaas.jaas = jaas();
  with_jaas.user = "bob";
  EXPECT_THAT(refused(client_sasl_options(with_jaas)), HasSubstr("--jaas names"));
  with_jaas.user.clear();
  EXPECT_EQ(chosen(client_sasl_options(with_jaas))->username, "bob");
}

TEST_F(ClientSecurityTest, ClientJvmflagsStandInForMissingFlags) {
  const std::string flags = "-Xmx64m -Djava.security.auth.login.config=" + jaas();
  auto security = client_security({}, {}, flags);
  ASSERT_TRUE(std::holds_alternative<ClientSecurity>(security)) << std::get<std::string>(security);
  const auto& s = std::get<ClientSecurity>(security);
  EXPECT_FALSE(s.tls_context);
  ASSERT_TRUE(s.sasl);
  EXPECT_EQ(s.sasl->username, "bob");

  auto off = client_security({}, {}, flags + " -Dzookeeper.sasl.client=false");
  ASSERT_TRUE(std::holds_alternative<ClientSecurity>(off));
  EXPECT_FALSE(std::get<ClientSecurity>(off).sasl);

  auto section = client_security(
      {}, {},
      flags + " -Dzookeeper.sasl.clientconfig=Kerberos -Dzookeeper.sasl.client.username=zk");
  ASSERT_TRUE(std::holds_alternative<ClientSecurity>(section));
  EXPECT_EQ(std::get<ClientSecurity>(section).sasl->mechanism, "GSSAPI");
  EXPECT_EQ(std::get<ClientSecurity>(section).sasl->service, "zk");

  // A flag wins over the environment.
  ClientSaslFlags gssapi;
  gssapi.mechanism = "GSSAPI";
  auto flagged = client_security({}, gssapi, flags);
  ASSERT_TRUE(std::holds_alternative<ClientSecurity>(flagged));
  EXPECT_EQ(std::get<ClientSecurity>(flagged).sasl->mechanism, "GSSAPI");
}

TEST_F(ClientSecurityTest, JavaKeyStoresAreRefusedWithTheConversion) {
  auto jks = client_security({}, {},
                             "-Dzookeeper.client.secure=true "
                             "-Dzookeeper.ssl.trustStore.location=/etc/zk/truststore.jks");
  ASSERT_TRUE(std::holds_alternative<std::string>(jks));
  EXPECT_THAT(std::get<std::string>(jks), HasSubstr("openssl pkcs12"));

  auto missing = client_security({}, {},
                                 "-Dzookeeper.client.secure=true "
                                 "-Dzookeeper.ssl.trustStore.location=/nonexistent/ca.pem");
  ASSERT_TRUE(std::holds_alternative<std::string>(missing));
  EXPECT_THAT(std::get<std::string>(missing), HasSubstr("/nonexistent/ca.pem"));

  // Without zookeeper.client.secure the stores are not looked at.
  auto plain = client_security({}, {}, "-Dzookeeper.ssl.trustStore.location=/x.jks");
  ASSERT_TRUE(std::holds_alternative<ClientSecurity>(plain));
  EXPECT_FALSE(std::get<ClientSecurity>(plain).tls_context);
}

}  // namespace
}  // namespace zk::toolkit
