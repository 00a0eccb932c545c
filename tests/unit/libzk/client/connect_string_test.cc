// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/connect_string.h"

#include <gtest/gtest.h>

#include "libzk/client/chroot.h"

namespace zk::client {
namespace {

TEST(ConnectStringTest, HostsPortsAndChroot) {
  auto cs = parse_connect_string("10.0.0.1:2181,zk2:2182,[::1]:2183/app/x");
  ASSERT_TRUE(cs.ok());
  ASSERT_EQ(cs->hosts.size(), 3u);
  EXPECT_EQ(cs->hosts[0], (HostPort{"10.0.0.1", 2181}));
  EXPECT_EQ(cs->hosts[1], (HostPort{"zk2", 2182}));
  EXPECT_EQ(cs->hosts[2], (HostPort{"::1", 2183}));
  EXPECT_EQ(cs->chroot, "/app/x");
}

TEST(ConnectStringTest, DefaultPortAndNoChroot) {
  auto cs = parse_connect_string("localhost");
  ASSERT_TRUE(cs.ok());
  EXPECT_EQ(cs->hosts, (std::vector<HostPort>{{"localhost", 2181}}));
  EXPECT_EQ(cs->chroot, "");
}

TEST(ConnectStringTest, SlashAloneMeansNoChroot) {
  auto cs = parse_connect_string("127.0.0.1:2181/");
  ASSERT_TRUE(cs.ok());
  EXPECT_EQ(cs->chroot, "");
}

TEST(ConnectStringTest, RejectsBadInput) {
  EXPECT_EQ(parse_connect_string("").error(), Error::kBadArguments);
  EXPECT_EQ(parse_connect_string("/chroot").error(), Error::kBadArguments);
  EXPECT_EQ(parse_connect_string("h:0").error(), Error::kBadArguments);
  EXPECT_EQ(parse_connect_string("h:65536").error(), Error::kBadArguments);
  EXPECT_EQ(parse_connect_string("h:x").error(), Error::kBadArguments);
  EXPECT_EQ(parse_connect_string("h:1/app/").error(), Error::kBadArguments);
  EXPECT_EQ(parse_connect_string("h:1/a//b").error(), Error::kBadArguments);
}

TEST(ChrootTest, PrefixesOutgoingPaths) {
  Chroot chroot("/app");
  EXPECT_EQ(chroot.prefix("/"), "/app");
  EXPECT_EQ(chroot.prefix("/a/b"), "/app/a/b");
  EXPECT_EQ(Chroot().prefix("/a"), "/a");
}

TEST(ChrootTest, StripsIncomingPaths) {
  Chroot chroot("/app");
  EXPECT_EQ(chroot.strip("/app"), "/");
  EXPECT_EQ(chroot.strip("/app/a"), "/a");
  EXPECT_EQ(chroot.strip("/other"), "/other");  // outside: unchanged
  EXPECT_EQ(chroot.strip("/apple"), "/apple");  // prefix of a name is not the chroot
  EXPECT_EQ(Chroot().strip("/a"), "/a");
}

}  // namespace
}  // namespace zk::client
