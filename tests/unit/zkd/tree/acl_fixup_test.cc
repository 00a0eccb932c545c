// SPDX-License-Identifier: Apache-2.0
// fixup_acl (Apache's fixupACL, docs/wire-protocol.md §10.5): what create and setACL store, or
// INVALIDACL (nullopt).
#include "zkd/tree/acl_fixup.h"

#include <gtest/gtest.h>

namespace zkd::tree {
namespace {

namespace perms = zk::wire::perms;
using zk::wire::ACLs;

const zk::wire::Id kIp{"ip", "127.0.0.1"};
const zk::wire::Id kAlice{"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="};
const zk::wire::Id kBob{"digest", "bob:ikIaKsbtGweaHnb/jKn7OHqbunM="};

TEST(FixupAcl, ValidEntriesAreKeptInOrderWithoutDuplicates) {
  ACLs given{{perms::kRead, {"world", "anyone"}},
             {perms::kAll, kAlice},
             {perms::kRead, {"world", "anyone"}},
             {perms::kWrite, {"ip", "10.0.0.0/8"}},
             {perms::kAll, kAlice}};
  EXPECT_EQ(fixup_acl(given, AuthIds()), (ACLs{{perms::kRead, {"world", "anyone"}},
                                               {perms::kAll, kAlice},
                                               {perms::kWrite, {"ip", "10.0.0.0/8"}}}));
}

TEST(FixupAcl, PermsAreNotRangeChecked) {
  ACLs given{{0, {"world", "anyone"}}, {63, {"ip", "127.0.0.1"}}};
  EXPECT_EQ(fixup_acl(given, AuthIds()), given);
}

TEST(FixupAcl, EmptyListIsInvalid) { EXPECT_FALSE(fixup_acl({}, AuthIds({kIp, kAlice}))); }

TEST(FixupAcl, WorldMustBeAnyone) {
  EXPECT_FALSE(fixup_acl({{perms::kAll, {"world", "someone"}}}, AuthIds()));
  EXPECT_FALSE(fixup_acl({{perms::kAll, {"world", ""}}}, AuthIds()));
}

TEST(FixupAcl, UnknownSchemesAreInvalid) {
  for (const char* scheme : {"nosuch", "super", ""}) {
    EXPECT_FALSE(fixup_acl({{perms::kAll, {scheme, "x"}}}, AuthIds({kIp, kAlice}))) << scheme;
  }
}

TEST(FixupAcl, AuthBecomesEveryDigestIdOfTheCallerInApachesOrder) {
  ACLs given{{perms::kAll, {"auth", ""}}, {perms::kRead, {"world", "anyone"}}};
  // Apache lists these ids as bob, super, ip, alice (AuthIds::ids()).
  EXPECT_EQ(
      fixup_acl(given, AuthIds({kIp, kAlice, {"super", ""}, kBob})),
      (ACLs{{perms::kAll, kBob}, {perms::kAll, kAlice}, {perms::kRead, {"world", "anyone"}}}));
}

TEST(FixupAcl, AuthIgnoresItsIdText) {
  EXPECT_EQ(fixup_acl({{perms::kRead, {"auth", "whatever"}}}, AuthIds({kAlice})),
            (ACLs{{perms::kRead, kAlice}}));
}

TEST(FixupAcl, AuthWithoutADigestIdIsInvalid) {
  ACLs given{{perms::kAll, {"auth", ""}}};
  EXPECT_FALSE(fixup_acl(given, AuthIds()));
  EXPECT_FALSE(fixup_acl(given, AuthIds({kIp})));
  EXPECT_FALSE(fixup_acl(given, AuthIds({kIp, {"super", ""}})));
}

TEST(FixupAcl, AuthExpansionIsNotDeduplicatedAgain) {
  ACLs given{{perms::kAll, kAlice}, {perms::kAll, {"auth", ""}}};
  EXPECT_EQ(fixup_acl(given, AuthIds({kAlice})),
            (ACLs{{perms::kAll, kAlice}, {perms::kAll, kAlice}}));
}

TEST(FixupAcl, DigestIdsNeedTwoPartsAsJavaSplitsThem) {
  for (const char* good : {"alice:V55/p2T0OpjQ+low3NVAH4aLvm0=", "user:abc", ":hash",
                           "a:b:", "a:b::", "user:not-really-base64"}) {
    EXPECT_TRUE(valid_digest_acl(good)) << good;
    EXPECT_TRUE(fixup_acl({{perms::kAll, {"digest", good}}}, AuthIds())) << good;
  }
  for (const char* bad : {"", "alice", "alice:", "alice::", ":", "a:b:c", "a::b", "::"}) {
    EXPECT_FALSE(valid_digest_acl(bad)) << bad;
    EXPECT_FALSE(fixup_acl({{perms::kAll, {"digest", bad}}}, AuthIds())) << bad;
  }
}

TEST(FixupAcl, IpIdsMustBeIpv4OrCidr) {
  EXPECT_TRUE(fixup_acl({{perms::kAll, {"ip", "127.0.0.1"}}}, AuthIds()));
  EXPECT_TRUE(fixup_acl({{perms::kAll, {"ip", "10.0.0.0/8"}}}, AuthIds()));
  for (const char* bad : {"not-an-ip", "10.0.0.0/33", "::1", "1.2.3"}) {
    EXPECT_FALSE(fixup_acl({{perms::kAll, {"ip", bad}}}, AuthIds())) << bad;
  }
}

TEST(FixupAcl, OneBadEntrySpoilsTheList) {
  EXPECT_FALSE(
      fixup_acl({{perms::kAll, {"world", "anyone"}}, {perms::kAll, {"ip", "bad"}}}, AuthIds()));
}

TEST(FixupAcl, SaslIdsMustParseAsKerberosNames) {
  for (std::string_view id : {"bob", "bob@EXAMPLE.COM", "zookeeper/host@EXAMPLE.COM", "a/b"}) {
    EXPECT_TRUE(valid_sasl_acl(id)) << id;
  }
  for (std::string_view id : {"a@b@c", "a/b/c@R", "a@R/x"}) EXPECT_FALSE(valid_sasl_acl(id)) << id;
  EXPECT_EQ(fixup_acl({{perms::kAll, {"sasl", "a@b@c"}}}, AuthIds()), std::nullopt);
}

TEST(FixupAcl, AuthExpandsToSaslIdsToo) {
  const AuthIds caller{{"ip", "127.0.0.1"}, {"sasl", "bob"}};
  EXPECT_EQ(fixup_acl({{perms::kAll, {"auth", ""}}}, caller),
            (ACLs{{perms::kAll, {"sasl", "bob"}}}));
}

TEST(FixupAcl, X509IdsMustBeDistinguishedNames) {
  for (std::string_view id : {"CN=client,O=zk", "CN=a\\,b,O=zk", "CN=client"}) {
    EXPECT_TRUE(valid_x509_acl(id)) << id;
  }
  for (std::string_view id : {"", "client", "CN=a,b", "=x"}) EXPECT_FALSE(valid_x509_acl(id)) << id;
  const AuthIds caller{{"ip", "127.0.0.1"}, {"x509", "CN=client,O=zk"}};
  EXPECT_EQ(fixup_acl({{perms::kAll, {"auth", ""}}}, caller),
            (ACLs{{perms::kAll, {"x509", "CN=client,O=zk"}}}));
}

}  // namespace
}  // namespace zkd::tree
