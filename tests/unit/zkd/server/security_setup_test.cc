// SPDX-License-Identifier: Apache-2.0
// Where zkd finds its JAAS file and what it says when SASL cannot be set up
// (security_setup.h's open_security).
#include "zkd/server/security_setup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "libzk/java/jvm_flags.h"
#include "tests/common/temp_dir.h"
#include "zkd/sasl/sasl_server.h"
#include "zkd/storage/env.h"

namespace zkd::server {
namespace {

using ::testing::HasSubstr;

TEST(SaslSetup, JvmSystemPropertiesAreReadFromFlags) {
  constexpr std::string_view kFlags =
      "-Xmx1g -Djava.security.auth.login.config=/etc/zk/jaas.conf -Dzookeeper.superUser=admin";
  EXPECT_EQ(zk::java::jvm_system_property(kFlags, "java.security.auth.login.config"),
            "/etc/zk/jaas.conf");
  EXPECT_EQ(zk::java::jvm_system_property(kFlags, "zookeeper.superUser"), "admin");
  EXPECT_EQ(zk::java::jvm_system_property(kFlags, "zookeeper"), "");
  EXPECT_EQ(zk::java::jvm_system_property("-Da=1 -Da=2", "a"), "2");
}

TEST(SaslSetup, TheOptionWinsThenServerJvmflagsThenJvmflags) {
  const std::string server = "-Djava.security.auth.login.config=/server.conf";
  const std::string plain = "-Djava.security.auth.login.config=/plain.conf";
  EXPECT_EQ(jaas_path("/option.conf", server, plain), "/option.conf");
  EXPECT_EQ(jaas_path("", server, plain), "/server.conf");
  EXPECT_EQ(jaas_path("", "-Xmx1g", plain), "/plain.conf");
  EXPECT_EQ(jaas_path("", "", ""), "");
}

class SaslSetupFiles : public ::testing::Test {
 protected:
  std::filesystem::path write(std::string_view text) {
    auto path = dir_ / "jaas.conf";
    std::ofstream(path) << text;
    return path;
  }
  zk::test::TempDir temp_{"zkd-sasl-setup"};
  const std::filesystem::path& dir_ = temp_.path();
  Clock& clock_ = storage::posix_env().clock();
};

// The error open_security gives, which must be a configuration error.
std::string error_of(const StatusOr<Security>& opened) {
  EXPECT_FALSE(opened.ok());
  if (opened.ok()) return {};
  EXPECT_EQ(opened.status().kind(), Status::Kind::kConfig);
  return opened.status().message();
}

// Apache starts then too, and SASL logins fail: Kafka-era configs carry
// authProvider.1=...SASLAuthenticationProvider with no JAAS file.
TEST_F(SaslSetupFiles, NoFileLeavesClientSaslOffEvenWithTheSaslProvider) {
  ServerConfig config;
  for (const bool provider : {false, true}) {
    config.sasl_provider = provider;
    auto opened = open_security(config, "", clock_);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    EXPECT_EQ(opened->sasl, nullptr) << provider;
  }
}

TEST_F(SaslSetupFiles, ErrorsNameTheFile) {
  ServerConfig config;
  EXPECT_EQ(error_of(open_security(config, dir_ / "missing.conf", clock_)),
            "cannot read the JAAS file " + (dir_ / "missing.conf").string());
  const auto bad = write("Server {\n  m required user_a=;\n};");
  EXPECT_EQ(error_of(open_security(config, bad, clock_)),
            "JAAS file " + bad.string() + ": line 2: expected a value for option user_a");
}

// Apache starts with client SASL off then (kazoo's harness passes an empty
// JAAS file beside authProvider.1=...SASLAuthenticationProvider).
TEST_F(SaslSetupFiles, AFileWithoutAServerSectionLeavesClientSaslOff) {
  ServerConfig config;
  config.sasl_provider = true;
  for (const std::string_view text : {"", "Client { m required; };"}) {
    auto opened = open_security(config, write(text), clock_);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    EXPECT_EQ(opened->sasl, nullptr) << text;
  }
}

TEST_F(SaslSetupFiles, QuorumSaslTakesItsTwoSectionsAndNeedsNoServerSection) {
  ServerConfig config;
  config.quorum_sasl = true;
  EXPECT_THAT(error_of(open_security(config, "", clock_)),
              HasSubstr("quorum.auth.enableSasl is true but zkd has no"));
  const auto quorum_only = write(
      "QuorumServer { org.apache.zookeeper.server.auth.DigestLoginModule required "
      "user_peer=\"pw\"; };\n"
      "QuorumLearner { org.apache.zookeeper.server.auth.DigestLoginModule required "
      "username=\"peer\" password=\"pw\"; };");
  auto opened = open_security(config, quorum_only, clock_);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  ASSERT_NE(opened->quorum_sasl_server, nullptr);
  EXPECT_EQ(opened->quorum_sasl_server->settings().service, "zookeeper-quorum");
  EXPECT_EQ(opened->quorum_sasl_learner.mechanism, "DIGEST-MD5");
  EXPECT_EQ(opened->quorum_sasl_learner.username, "peer");
  EXPECT_EQ(opened->quorum_sasl_learner.password, "pw");
  EXPECT_EQ(opened->quorum_sasl_learner.service, "zookeeper-quorum");
  EXPECT_EQ(opened->sasl, nullptr);  // no Server section: no client SASL

  ServerConfig renamed;
  renamed.quorum_sasl = true;
  renamed.quorum_sasl_learner_section = "Elsewhere";
  EXPECT_THAT(error_of(open_security(renamed, quorum_only, clock_)),
              HasSubstr("no section Elsewhere"));
}

TEST_F(SaslSetupFiles, KerberosQuorumSectionsTakeTheServiceFromThePrincipal) {
  const std::string quorum =
      "QuorumServer { com.sun.security.auth.module.Krb5LoginModule required "
      "keyTab=\"/k\" principal=\"zkquorum/h@R\"; };\n"
      "QuorumLearner { com.sun.security.auth.module.Krb5LoginModule required "
      "keyTab=\"/k\" principal=\"zkquorum/h@R\"; };\n";
  ServerConfig config;
  config.quorum_sasl = true;
  auto opened = open_security(config, write(quorum), clock_);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  ASSERT_NE(opened->quorum_sasl_server, nullptr);
  EXPECT_EQ(opened->quorum_sasl_server->settings().mechanism_name(), "GSSAPI");
  EXPECT_EQ(opened->quorum_sasl_server->settings().service, "zkquorum");
  EXPECT_EQ(opened->quorum_sasl_learner.mechanism, "GSSAPI");

  ServerConfig two_keytabs;
  two_keytabs.quorum_sasl = true;
  const auto both = write(
      "Server { com.sun.security.auth.module.Krb5LoginModule required "
      "keyTab=\"/other\" principal=\"zookeeper/h@R\"; };\n" +
      quorum);
  EXPECT_THAT(error_of(open_security(two_keytabs, both, clock_)),
              HasSubstr("name different keytabs (/other, /k)"));
}

TEST_F(SaslSetupFiles, ADigestSectionSetsUpDigestMd5) {
  ServerConfig config;
  const auto good = write(
      "Server { org.apache.zookeeper.server.auth.DigestLoginModule required user_bob=\"pw\"; };");
  auto opened = open_security(config, good, clock_);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  ASSERT_NE(opened->sasl, nullptr);
  EXPECT_EQ(opened->sasl->settings().mechanism_name(), "DIGEST-MD5");
}

}  // namespace
}  // namespace zkd::server
