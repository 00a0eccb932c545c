// SPDX-License-Identifier: Apache-2.0
// Apache's dynamic configuration files as zkd writes them
// (zkd/server/dynamic_config_file.h): the dynamic file's text and zoo.cfg's
// rewrite as Apache 3.8's writeDynamicConfig and editStaticConfig make them,
// the writes (atomic, surviving a power loss on MemoryEnv), and a zoo.cfg
// that zkd rewrote read back with the membership and version it names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/common/temp_dir.h"
#include "zkd/server/config.h"
#include "zkd/server/dynamic_config_file.h"
#include "zkd/server/reconfig.h"
#include "zkd/storage/env.h"
#include "zkd/storage/memory_env.h"

namespace zkd::server {
namespace {

QuorumServers servers(const std::string& text) {
  auto parsed = parse_membership_text(text + "version=0");
  EXPECT_TRUE(parsed) << text;
  return parsed ? parsed->first : QuorumServers{};
}

TEST(DynamicFiles, NamedAfterZooCfgWithTheVersionInHex) {
  EXPECT_EQ(dynamic_file_path("/conf/zoo.cfg", 0x100000003).string(),
            "/conf/zoo.cfg.dynamic.100000003");
  EXPECT_EQ(dynamic_file_path("zoo.cfg", 0xabc).string(), "zoo.cfg.dynamic.abc");
}

TEST(DynamicFiles, ServerLinesSortedAsStringsWithoutVersionOrFinalLineEnd) {
  // What Apache 3.8's writeDynamicConfig writes for this membership: the
  // lines of QuorumMaj.toString() but version, sorted as strings: whole
  // "key=value" strings, so server.10= comes before server.1= ('0' < '=').
  const QuorumServers members = servers(
      "server.2=127.0.0.1:2882:3882:participant;127.0.0.1:2182\n"
      "server.10=h10:2890:3890:observer\n"
      "server.1=127.0.0.1:2881:3881;2181\n");
  EXPECT_EQ(dynamic_file_text(members),
            "server.10=h10:2890:3890:observer\n"
            "server.1=127.0.0.1:2881:3881:participant;0.0.0.0:2181\n"
            "server.2=127.0.0.1:2882:3882:participant;127.0.0.1:2182");
}

TEST(DynamicFiles, ZooCfgKeepsItsKeysButTheMembershipsAndPointsAtTheFile) {
  const std::string zoo_cfg =
      "# a comment\n"
      "tickTime=2000\n"
      "dataDir=/var/lib/zookeeper\n"
      "clientPort=2181\n"
      "reconfigEnabled = true\n"
      "server.1=h1:2888:3888\n"
      "peerType=participant\n"
      "group.1=1:2:3\n"
      "weight.1=1\n"
      "dynamicConfigFile=/conf/zoo.cfg.dynamic.100000000\n"
      "tickTime=3000\n";
  EXPECT_EQ(static_file_text(zoo_cfg, "/conf/zoo.cfg.dynamic.100000003", false),
            "tickTime=3000\n"
            "dataDir=/var/lib/zookeeper\n"
            "clientPort=2181\n"
            "reconfigEnabled=true\n"
            "dynamicConfigFile=/conf/zoo.cfg.dynamic.100000003\n");
}

TEST(DynamicFiles, ClientPortLeavesWhenTheServersOwnLineNamesOne) {
  // Apache's needEraseClientInfoFromStaticConfig, and its prefix test:
  // clientPortListenBacklog goes with clientPort.
  const QuorumServers members = servers(
      "server.1=h1:2888:3888;2181\n"
      "server.2=h2:2888:3888\n");
  EXPECT_TRUE(erase_client_port(members, 1));
  EXPECT_FALSE(erase_client_port(members, 2));
  EXPECT_FALSE(erase_client_port(members, 3));  // removed: no line
  EXPECT_EQ(static_file_text("clientPort=2181\nclientPortAddress=127.0.0.1\n"
                             "clientPortListenBacklog=10\ninitLimit=5\n",
                             "/d", true),
            "initLimit=5\ndynamicConfigFile=/d\n");
  EXPECT_EQ(static_file_text("clientPort=2181\nclientPortAddress=127.0.0.1\n", "/d", false),
            "clientPort=2181\nclientPortAddress=127.0.0.1\ndynamicConfigFile=/d\n");
}

TEST(DynamicFiles, WritesBothFilesDurably) {
  storage::MemoryEnv env;
  ASSERT_TRUE(env.create_dirs("/conf").ok());
  {
    auto file = env.new_writable_file("/conf/zoo.cfg", 0);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->append("dataDir=/data\nserver.1=h1:2888:3888;2181\n").ok());
    ASSERT_TRUE((*file)->sync().ok());
    ASSERT_TRUE((*file)->close().ok());
    ASSERT_TRUE(env.sync_dir("/conf").ok());
  }
  ASSERT_TRUE(back_up_static_config(env, "/conf/zoo.cfg").ok());
  {
    // Apache's proposed configuration, left behind: gone with the commit.
    auto file = env.new_writable_file("/conf/zoo.cfg.dynamic.next", 0);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->close().ok());
  }
  const QuorumServers members = servers("server.1=h1:2888:3888;2181\nserver.2=h2:2888:3888\n");
  ASSERT_TRUE(write_dynamic_config(env, "/conf/zoo.cfg", members, 0x100000005, 1).ok());
  env.drop_unsynced();  // what a power loss leaves: everything
  EXPECT_EQ(*env.read_file("/conf/zoo.cfg.bak"), "dataDir=/data\nserver.1=h1:2888:3888;2181\n");
  EXPECT_EQ(*env.read_file("/conf/zoo.cfg.dynamic.100000005"),
            "server.1=h1:2888:3888:participant;0.0.0.0:2181\nserver.2=h2:2888:3888:participant");
  EXPECT_EQ(*env.read_file("/conf/zoo.cfg"),
            "dataDir=/data\ndynamicConfigFile=/conf/zoo.cfg.dynamic.100000005\n");
  EXPECT_FALSE(env.file_exists("/conf/zoo.cfg.tmp"));
  EXPECT_FALSE(env.file_exists("/conf/zoo.cfg.dynamic.next"));
}

TEST(DynamicFiles, ARemovedServerErasesTheClientPortItsStaticLineNamed) {
  // Apache rewrote zoo.cfg at its first election, with server 3's line,
  // which names a client port: it was erased then, and stays so when the
  // reconfiguration that removes server 3 is written.
  storage::MemoryEnv env;
  ASSERT_TRUE(env.create_dirs("/conf").ok());
  {
    auto file = env.new_writable_file("/conf/zoo.cfg", 0);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->append("clientPort=2183\nserver.3=h3:2888:3888;2183\n").ok());
    ASSERT_TRUE((*file)->close().ok());
  }
  const QuorumServers members = servers("server.1=h1:2888:3888;2181\nserver.2=h2:2888:3888\n");
  ASSERT_TRUE(write_dynamic_config(env, "/conf/zoo.cfg", members, 0x100000002, 3).ok());
  EXPECT_EQ(*env.read_file("/conf/zoo.cfg"), "dynamicConfigFile=/conf/zoo.cfg.dynamic.100000002\n");
}

TEST(DynamicFiles, ReportsTheFileItCannotWrite) {
  storage::MemoryEnv env;  // no /conf
  const Status s =
      write_dynamic_config(env, "/conf/zoo.cfg", servers("server.1=h1:1:2\n"), 0x100000001, 1);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/conf/zoo.cfg.dynamic.100000001"), std::string::npos) << s.message();
}

TEST(DynamicFiles, AZooCfgZkdRewroteStartsWithItsMembershipAndVersion) {
  zk::test::TempDir temp("zkd_dynamic_config_test");
  const auto data = temp.path() / "data";
  std::filesystem::create_directories(data);
  temp.write("data/myid", "2\n");
  const std::string zoo_cfg = temp.write(
      "zoo.cfg",
      "tickTime=200\ninitLimit=10\nsyncLimit=5\nreconfigEnabled=true\ndataDir=" + data.string() +
          "\nclientPort=2181\n"
          "server.1=127.0.0.1:2881:3881\nserver.2=127.0.0.1:2882:3882\n"
          "server.3=127.0.0.1:2883:3883\n");
  // Server 3 left, 4 joined as an observer, at zxid 0x200000007.
  const QuorumServers members = servers(
      "server.1=127.0.0.1:2881:3881\nserver.2=127.0.0.1:2882:3882\n"
      "server.4=127.0.0.1:2884:3884:observer;127.0.0.1:2184\n");
  ASSERT_TRUE(write_dynamic_config(storage::posix_env(), zoo_cfg, members, 0x200000007, 2).ok());
  auto loaded = load_config(zoo_cfg);
  ASSERT_TRUE(loaded.config) << loaded.error.message();
  const ServerConfig& c = *loaded.config;
  EXPECT_EQ(c.config_version, 0x200000007);
  EXPECT_EQ(c.dynamic_config_file,
            std::filesystem::canonical(temp.path()) / "zoo.cfg.dynamic.200000007");
  ASSERT_EQ(c.quorum_servers.size(), 3u);
  EXPECT_TRUE(c.quorum_servers.at(4).observer);
  EXPECT_EQ(c.quorum_servers.at(4).client_port, 2184);
  EXPECT_EQ(c.my_id, 2);
  EXPECT_EQ(c.client_port, 2181);  // zoo.cfg's: server 2's line names none
  EXPECT_TRUE(c.reconfig_enabled);
}

}  // namespace
}  // namespace zkd::server
