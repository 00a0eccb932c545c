// SPDX-License-Identifier: Apache-2.0
// Authentication (docs/wire-protocol.md §10.2, §10.3): digest ids as Apache
// computes them, the ids each AuthPacket adds, the super digest from zoo.cfg, whoAmI's entries.
#include "zkd/server/authentication.h"

#include <gtest/gtest.h>

#include "zkd/server/config.h"

namespace zkd::server {
namespace {

using Ids = std::vector<zk::wire::Id>;

const DigestSettings kSuper{true, "SHA1", "super:lK75jTNcA+U9vtVEw5vB51mj/w4="};

TEST(DigestId, MatchesApachesProvider) {
  // Both values checked live against Apache's DigestAuthenticationProvider.
  EXPECT_EQ(digest_id("alice:pw"), "alice:V55/p2T0OpjQ+low3NVAH4aLvm0=");
  EXPECT_EQ(digest_id("super:secret"), "super:lK75jTNcA+U9vtVEw5vB51mj/w4=");
}

TEST(DigestId, UserIsBeforeTheFirstColonAndTheHashCoversEverything) {
  EXPECT_EQ(digest_id("bob:pw"), "bob:ikIaKsbtGweaHnb/jKn7OHqbunM=");
  // sha1("alice") and sha1("a:b:c"), base64.
  EXPECT_EQ(digest_id("alice"), "alice:UisnajVr3zkBPfq+os1D4UHsyeg=");
  EXPECT_EQ(digest_id("a:b:c"), "a:cLzgnoJ6mP5qz3w+mwvPE2vDgu0=");
  EXPECT_EQ(digest_id(""), ":2jmj7l5rSw0yVb/vlWAYkK/YBwk=");
}

TEST(Authenticate, DigestAddsItsId) {
  zk::wire::AuthPacket packet{0, "digest", std::string("alice:pw")};
  EXPECT_EQ(authenticate(packet, "127.0.0.1", {}),
            (Ids{{"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="}}));
  EXPECT_EQ(authenticate(packet, "127.0.0.1", kSuper),
            (Ids{{"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="}}));
}

TEST(Authenticate, TheSuperDigestAddsSuperFirst) {
  zk::wire::AuthPacket packet{0, "digest", std::string("super:secret")};
  EXPECT_EQ(authenticate(packet, "127.0.0.1", kSuper),
            (Ids{{"super", ""}, {"digest", "super:lK75jTNcA+U9vtVEw5vB51mj/w4="}}));
  // Without a configured super digest, super is just a user name.
  EXPECT_EQ(authenticate(packet, "127.0.0.1", {}),
            (Ids{{"digest", "super:lK75jTNcA+U9vtVEw5vB51mj/w4="}}));
}

TEST(Authenticate, DigestTakesTheConfiguredAlgorithmOrNone) {
  zk::wire::AuthPacket packet{0, "digest", std::string("alice:pw")};
  // base64(sha256("alice:pw")), base64(sha3-256("alice:pw")).
  EXPECT_EQ(authenticate(packet, "127.0.0.1", {true, "SHA-256", ""}),
            (Ids{{"digest", "alice:uoe2aAb9LQtvXhepi1lfNPruBxd4qoF/snHQYhTtJPk="}}));
  EXPECT_EQ(authenticate(packet, "127.0.0.1", {true, "SHA3-256", ""}),
            (Ids{{"digest", "alice:UP3pLMAsQOlB1EMeRhqfae4O4Yw1rDUsFISFg/aL+48="}}));
  EXPECT_FALSE(authenticate(packet, "127.0.0.1", {false, "SHA1", ""}));
  EXPECT_TRUE(valid_digest_algorithm("SHA-512"));
  EXPECT_FALSE(valid_digest_algorithm("SHA-9"));
}

TEST(Authenticate, IpIgnoresItsPayload) {
  zk::wire::AuthPacket packet{0, "ip", std::string("10.1.2.3")};
  EXPECT_EQ(authenticate(packet, "127.0.0.1", {}), (Ids{{"ip", "127.0.0.1"}}));
}

TEST(Authenticate, OtherSchemesFail) {
  for (const char* scheme : {"world", "auth", "super", "sasl", "x509", "Digest", ""}) {
    EXPECT_FALSE(authenticate({0, scheme, std::string("alice:pw")}, "127.0.0.1", {})) << scheme;
  }
}

TEST(Ipv6HostAddress, WritesEightGroupsAsJavaDoes) {
  std::array<uint8_t, 16> loopback{};
  loopback[15] = 1;
  EXPECT_EQ(ipv6_host_address(loopback), "0:0:0:0:0:0:0:1");
  std::array<uint8_t, 16> doc{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xab, 0xcd, 0, 0x10};
  EXPECT_EQ(ipv6_host_address(doc), "2001:db8:0:0:0:0:abcd:10");
}

TEST(WhoAmI, OneEntryPerIdWithItsUser) {
  const Ids ids{{"ip", "127.0.0.1"},
                {"super", ""},
                {"digest", "super:lK75jTNcA+U9vtVEw5vB51mj/w4="},
                {"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="}};
  EXPECT_EQ(who_am_i(ids).client_info,
            (std::vector<zk::wire::ClientInfo>{
                {"ip", "127.0.0.1"}, {"super", ""}, {"digest", "super"}, {"digest", "alice"}}));
  EXPECT_TRUE(who_am_i({}).client_info.empty());
}

TEST(SuperDigestConfig, IsReadFromZooCfg) {
  auto r = parse_config(
      "dataDir=/d\nclientPort=1\n"
      "DigestAuthenticationProvider.superDigest=super:lK75jTNcA+U9vtVEw5vB51mj/w4=\n",
      "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->digest.super_digest, "super:lK75jTNcA+U9vtVEw5vB51mj/w4=");
  EXPECT_TRUE(r.warnings.empty());
  auto none = parse_config("dataDir=/d\nclientPort=1\n", "zoo.cfg");
  ASSERT_TRUE(none.config);
  EXPECT_EQ(none.config->digest.super_digest, "");
  EXPECT_EQ(none.config->digest.algorithm, "SHA1");
  EXPECT_TRUE(none.config->digest.enabled);
  EXPECT_FALSE(none.config->skip_acl);
}

TEST(DigestConfig, AlgorithmSwitchAndSkipAclAreRead) {
  auto r = parse_config(
      "dataDir=/d\nclientPort=1\nDigestAuthenticationProvider.digestAlg=SHA-256\n"
      "DigestAuthenticationProvider.enabled=false\nskipACL=yes\n",
      "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->digest.algorithm, "SHA-256");
  EXPECT_FALSE(r.config->digest.enabled);
  EXPECT_TRUE(r.config->skip_acl);
  auto bad = parse_config(
      "dataDir=/d\nclientPort=1\nDigestAuthenticationProvider.digestAlg=SHA-9\n", "zoo.cfg");
  EXPECT_FALSE(bad.config);
  EXPECT_NE(bad.error.message().find(
                "zoo.cfg:3: DigestAuthenticationProvider.digestAlg: OpenSSL has no digest SHA-9"),
            std::string::npos)
      << bad.error.message();
}

TEST(KerberosSaslId, KeepsHostAndRealmUnlessTold) {
  constexpr std::string_view kPrincipal = "zkcli/client.example.com@EXAMPLE.COM";
  EXPECT_EQ(kerberos_sasl_id(kPrincipal, false, false), kPrincipal);
  EXPECT_EQ(kerberos_sasl_id(kPrincipal, true, false), "zkcli@EXAMPLE.COM");
  EXPECT_EQ(kerberos_sasl_id(kPrincipal, false, true), "zkcli/client.example.com");
  EXPECT_EQ(kerberos_sasl_id(kPrincipal, true, true), "zkcli");
  EXPECT_EQ(kerberos_sasl_id("bob@EXAMPLE.COM", true, false), "bob@EXAMPLE.COM");
  EXPECT_EQ(kerberos_sasl_id("bob", false, false), "bob");
}

TEST(WhoAmI, SaslIdsListTheirWholeId) {
  auto reply = who_am_i({{"sasl", "bob"}, {"ip", "127.0.0.1"}});
  ASSERT_EQ(reply.client_info.size(), 2u);
  EXPECT_EQ(reply.client_info[0].auth_scheme, "sasl");
  EXPECT_EQ(reply.client_info[0].user, "bob");
}

}  // namespace
}  // namespace zkd::server
