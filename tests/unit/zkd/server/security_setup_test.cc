// SPDX-License-Identifier: Apache-2.0
// Where zkd finds its JAAS file and what it says when SASL cannot be set up
// (security_setup.h).
#include "zkd/server/security_setup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "libzk/java/jvm_flags.h"
#include "tests/common/temp_dir.h"
#include "zkd/sasl/sasl_server.h"

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
};

TEST_F(SaslSetupFiles, NoFileIsFineUnlessTheSaslProviderIsConfigured) {
  ServerConfig config;
  EXPECT_EQ(setup_sasl(config, ""), "");
  EXPECT_EQ(config.sasl, nullptr);
  config.sasl_provider = true;
  EXPECT_THAT(setup_sasl(config, ""), HasSubstr("zkd has no JAAS file: pass zkd --jaas FILE"));
}

TEST_F(SaslSetupFiles, ErrorsNameTheFile) {
  ServerConfig config;
  EXPECT_EQ(setup_sasl(config, dir_ / "missing.conf"),
            "cannot read the JAAS file " + (dir_ / "missing.conf").string());
  const auto bad = write("Server {\n  m required user_a=;\n};");
  EXPECT_EQ(setup_sasl(config, bad),
            "JAAS file " + bad.string() + ": line 2: expected a value for option user_a");
  EXPECT_EQ(config.sasl, nullptr);
}

// Apache starts with client SASL off then (kazoo's harness passes an empty
// JAAS file beside authProvider.1=...SASLAuthenticationProvider).
TEST_F(SaslSetupFiles, AFileWithoutAServerSectionLeavesClientSaslOff) {
  ServerConfig config;
  config.sasl_provider = true;
  EXPECT_EQ(setup_sasl(config, write("")), "");
  EXPECT_EQ(setup_sasl(config, write("Client { m required; };")), "");
  EXPECT_EQ(config.sasl, nullptr);
}

TEST_F(SaslSetupFiles, QuorumSaslTakesItsTwoSectionsAndNeedsNoServerSection) {
  ServerConfig config;
  config.quorum_sasl = true;
  EXPECT_THAT(setup_sasl(config, ""), HasSubstr("quorum.auth.enableSasl is true but zkd has no"));
  const auto quorum_only = write(
      "QuorumServer { org.apache.zookeeper.server.auth.DigestLoginModule required "
      "user_peer=\"pw\"; };\n"
      "QuorumLearner { org.apache.zookeeper.server.auth.DigestLoginModule required "
      "username=\"peer\" password=\"pw\"; };");
  ASSERT_EQ(setup_sasl(config, quorum_only), "");
  ASSERT_NE(config.quorum_sasl_server, nullptr);
  EXPECT_EQ(config.quorum_sasl_server->settings().service, "zookeeper-quorum");
  EXPECT_EQ(config.quorum_sasl_learner.mechanism, "DIGEST-MD5");
  EXPECT_EQ(config.quorum_sasl_learner.username, "peer");
  EXPECT_EQ(config.quorum_sasl_learner.password, "pw");
  EXPECT_EQ(config.quorum_sasl_learner.service, "zookeeper-quorum");
  EXPECT_EQ(config.sasl, nullptr);  // no Server section: no client SASL

  ServerConfig renamed;
  renamed.quorum_sasl = true;
  renamed.quorum_sasl_learner_section = "Elsewhere";
  EXPECT_THAT(setup_sasl(renamed, quorum_only), HasSubstr("no section Elsewhere"));
}

TEST_F(SaslSetupFiles, KerberosQuorumSectionsTakeTheServiceFromThePrincipal) {
  const std::string quorum =
      "QuorumServer { com.sun.security.auth.module.Krb5LoginModule required "
      "keyTab=\"/k\" principal=\"zkquorum/h@R\"; };\n"
      "QuorumLearner { com.sun.security.auth.module.Krb5LoginModule required "
      "keyTab=\"/k\" principal=\"zkquorum/h@R\"; };\n";
  ServerConfig config;
  config.quorum_sasl = true;
  ASSERT_EQ(setup_sasl(config, write(quorum)), "");
  ASSERT_NE(config.quorum_sasl_server, nullptr);
  EXPECT_EQ(config.quorum_sasl_server->settings().mechanism_name(), "GSSAPI");
  EXPECT_EQ(config.quorum_sasl_server->settings().service, "zkquorum");
  EXPECT_EQ(config.quorum_sasl_learner.mechanism, "GSSAPI");

  ServerConfig two_keytabs;
  two_keytabs.quorum_sasl = true;
  const auto both = write(
      "Server { com.sun.security.auth.module.Krb5LoginModule required "
      "keyTab=\"/other\" principal=\"zookeeper/h@R\"; };\n" +
      quorum);
  EXPECT_THAT(setup_sasl(two_keytabs, both), HasSubstr("name different keytabs (/other, /k)"));
}

TEST_F(SaslSetupFiles, ADigestSectionSetsUpDigestMd5) {
  ServerConfig config;
  const auto good = write(
      "Server { org.apache.zookeeper.server.auth.DigestLoginModule required user_bob=\"pw\"; };");
  ASSERT_EQ(setup_sasl(config, good), "");
  ASSERT_NE(config.sasl, nullptr);
  EXPECT_EQ(config.sasl->settings().mechanism_name(), "DIGEST-MD5");
}

}  // namespace
}  // namespace zkd::server
