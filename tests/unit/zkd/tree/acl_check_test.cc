// SPDX-License-Identifier: Apache-2.0
// permitted() (Apache's checkACL, docs/wire-protocol.md §10.4) and the ip
// scheme's address blocks.
#include "zkd/tree/acl_check.h"

#include <gtest/gtest.h>

#include "zkd/tree/ip_acl.h"

namespace zkd::tree {
namespace {

namespace perms = zk::wire::perms;
using zk::wire::ACLs;

const zk::wire::Id kAlice{"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="};

TEST(Permitted, EmptyAclAllowsEveryone) { EXPECT_TRUE(permitted({}, perms::kAdmin, AuthIds())); }

TEST(Permitted, WorldAnyoneAllowsOnlyItsBits) {
  ACLs acl{{perms::kRead | perms::kWrite, {"world", "anyone"}}};
  EXPECT_TRUE(permitted(acl, perms::kRead, AuthIds()));
  EXPECT_TRUE(permitted(acl, perms::kWrite, AuthIds()));
  EXPECT_FALSE(permitted(acl, perms::kCreate, AuthIds()));
  EXPECT_FALSE(permitted(acl, perms::kAdmin, AuthIds()));
}

TEST(Permitted, AnyWantedBitIsEnough) {
  ACLs acl{{perms::kAdmin, {"world", "anyone"}}};
  EXPECT_TRUE(permitted(acl, perms::kRead | perms::kAdmin, AuthIds()));
  EXPECT_FALSE(permitted(acl, perms::kRead, AuthIds()));
}

TEST(Permitted, WorldWithAnotherIdMatchesNobody) {
  ACLs acl{{perms::kAll, {"world", "someone"}}};
  EXPECT_FALSE(permitted(acl, perms::kRead, AuthIds({{"world", "someone"}})));
}

TEST(Permitted, DigestNeedsTheSameId) {
  ACLs acl{{perms::kRead, kAlice}};
  EXPECT_TRUE(permitted(acl, perms::kRead, AuthIds({{"ip", "127.0.0.1"}, kAlice})));
  EXPECT_FALSE(permitted(acl, perms::kRead, AuthIds({{"ip", "127.0.0.1"}})));
  EXPECT_FALSE(permitted(acl, perms::kRead, AuthIds({{"digest", "alice:wrong"}})));
  // Same text under another scheme is no match.
  EXPECT_FALSE(permitted(acl, perms::kRead, AuthIds({{"ip", kAlice.id}})));
}

TEST(Permitted, SuperBypassesEverything) {
  ACLs acl{{perms::kRead, kAlice}};
  EXPECT_TRUE(permitted(acl, perms::kAdmin, AuthIds({{"super", ""}})));
  EXPECT_TRUE(permitted({{0, {"world", "anyone"}}}, perms::kAll, AuthIds({{"super", ""}})));
}

TEST(Permitted, IpMatchesByAddressBlock) {
  ACLs acl{{perms::kRead, {"ip", "10.0.0.0/8"}}, {perms::kWrite, {"ip", "127.0.0.1"}}};
  EXPECT_TRUE(permitted(acl, perms::kRead, AuthIds({{"ip", "10.20.30.40"}})));
  EXPECT_FALSE(permitted(acl, perms::kRead, AuthIds({{"ip", "11.0.0.1"}})));
  EXPECT_TRUE(permitted(acl, perms::kWrite, AuthIds({{"ip", "127.0.0.1"}})));
  EXPECT_FALSE(permitted(acl, perms::kWrite, AuthIds({{"ip", "127.0.0.2"}})));
}

TEST(Permitted, UnknownSchemesMatchNobody) {
  ACLs acl{{perms::kAll, {"nosuch", "alice"}}, {perms::kAll, {"auth", ""}}};
  EXPECT_FALSE(permitted(acl, perms::kRead, AuthIds({{"nosuch", "alice"}, {"auth", ""}})));
}

TEST(IpAcl, ParsesDottedQuadsAsJavaParseIntReadsThem) {
  EXPECT_EQ(parse_ipv4("127.0.0.1"), (Ipv4{127, 0, 0, 1}));
  EXPECT_EQ(parse_ipv4("255.255.255.255"), (Ipv4{255, 255, 255, 255}));
  EXPECT_EQ(parse_ipv4("010.+1.-0.00"), (Ipv4{10, 1, 0, 0}));
  for (const char* bad : {"", "1.2.3", "1.2.3.4.5", "1.2.3.", ".1.2.3", "1..2.3", "256.0.0.1",
                          "1.2.3.-1", "a.b.c.d", "1.2.3.4 ", "::1", "1.2.3.99999999999"}) {
    EXPECT_FALSE(parse_ipv4(bad)) << bad;
  }
}

TEST(IpAcl, ValidIdsAreAnAddressWithOptionalBits) {
  for (const char* good : {"127.0.0.1", "10.0.0.0/8", "0.0.0.0/0", "1.2.3.4/32", "1.2.3.4/+8"}) {
    EXPECT_TRUE(valid_ip_acl(good)) << good;
  }
  for (const char* bad : {"not-an-ip", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/8/8",
                          "10.0.0/8", "::1", "0:0:0:0:0:0:0:1", "fe80::/10", ""}) {
    EXPECT_FALSE(valid_ip_acl(bad)) << bad;
  }
}

TEST(IpAcl, MatchesMaskedPrefixes) {
  EXPECT_TRUE(ip_matches("10.0.0.0/8", "10.255.1.2"));
  EXPECT_FALSE(ip_matches("10.0.0.0/8", "11.0.0.0"));
  EXPECT_TRUE(ip_matches("192.168.1.77/24", "192.168.1.3"));  // host bits of the block ignored
  EXPECT_FALSE(ip_matches("192.168.1.0/24", "192.168.2.3"));
  EXPECT_TRUE(ip_matches("192.168.0.0/23", "192.168.1.200"));
  EXPECT_FALSE(ip_matches("192.168.0.0/23", "192.168.2.1"));
  EXPECT_TRUE(ip_matches("172.16.0.0/12", "172.31.255.255"));
  EXPECT_FALSE(ip_matches("172.16.0.0/12", "172.32.0.0"));
  EXPECT_TRUE(ip_matches("0.0.0.0/0", "8.8.8.8"));
  EXPECT_TRUE(ip_matches("127.0.0.1", "127.0.0.1"));
  EXPECT_FALSE(ip_matches("127.0.0.1", "127.0.0.2"));
  EXPECT_TRUE(ip_matches("127.0.0.1/31", "127.0.0.0"));
  EXPECT_FALSE(ip_matches("127.0.0.1/32", "127.0.0.0"));
  EXPECT_FALSE(ip_matches("bad", "127.0.0.1"));
  EXPECT_FALSE(ip_matches("127.0.0.1", "0:0:0:0:0:0:0:1"));
}

TEST(Permitted, SaslEntriesMatchTheSameIdOrASaslSuper) {
  const zk::wire::ACLs acl{{perms::kRead, {"sasl", "bob"}}};
  EXPECT_TRUE(permitted(acl, perms::kRead, AuthIds{{"sasl", "bob"}}));
  EXPECT_FALSE(permitted(acl, perms::kRead, AuthIds{{"sasl", "bobby"}}));
  EXPECT_FALSE(permitted(acl, perms::kRead, AuthIds{{"digest", "bob"}}));
  EXPECT_TRUE(permitted(acl, perms::kRead, AuthIds{{"sasl", "super"}}));
}

TEST(Permitted, X509EntriesMatchTheSameSubject) {
  const zk::wire::ACLs acl{{perms::kRead, {"x509", "CN=client,O=zk"}}};
  EXPECT_TRUE(permitted(acl, perms::kRead, AuthIds{{"x509", "CN=client,O=zk"}}));
  EXPECT_FALSE(permitted(acl, perms::kRead, AuthIds{{"x509", "CN=other,O=zk"}}));
}

}  // namespace
}  // namespace zkd::tree
