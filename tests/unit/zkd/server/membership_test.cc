// SPDX-License-Identifier: Apache-2.0
// The membership text of /zookeeper/config and conf, in the shapes Apache
// 3.8.0 gave for the same server.N lines (docs/apache-behaviour.md).
#include <gtest/gtest.h>

#include <string>

#include "zkd/server/config.h"
#include "zkd/server/membership.h"

namespace zkd::server {
namespace {

ServerConfig parsed(const std::string& servers) {
  auto r =
      parse_config("dataDir=/d\nclientPort=2181\ninitLimit=10\nsyncLimit=5\n" + servers, "zoo.cfg");
  EXPECT_TRUE(r.config) << r.error.message();
  return r.config.value_or(ServerConfig{});
}

TEST(Membership, NamesTheTypeAndTheClientPartOnlyWhenTheLineHasOne) {
  // What Apache 3.8.0 put in /zookeeper/config for these three lines.
  const auto config = parsed(
      "server.1=127.0.0.1:21281:21381;21181\n"
      "server.2=localhost:21282:21382:participant;127.0.0.1:21182\n"
      "server.3=127.0.0.1:21283:21383\n");
  EXPECT_EQ(membership_text(config, kStaticConfigVersion),
            "server.1=127.0.0.1:21281:21381:participant;0.0.0.0:21181\n"
            "server.2=localhost:21282:21382:participant;127.0.0.1:21182\n"
            "server.3=127.0.0.1:21283:21383:participant\n"
            "version=0");
}

TEST(Membership, ObserversAndIpv6HostsAndVersionInHex) {
  const auto config = parsed(
      "server.1=[::1]:2888:3888\n"
      "server.2=h2:2888:3888\n"
      "server.10=h10:2888:3888:observer;[::1]:2181\n"
      "peerType=observer\n");
  EXPECT_EQ(membership_text(config, 0x100000000),
            "server.1=[::1]:2888:3888:participant\n"
            "server.2=h2:2888:3888:participant\n"
            "server.10=h10:2888:3888:observer;[::1]:2181\n"
            "version=100000000");
}

}  // namespace
}  // namespace zkd::server
