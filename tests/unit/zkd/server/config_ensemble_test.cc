// SPDX-License-Identifier: Apache-2.0
// zoo.cfg ensemble keys (server.N, initLimit, syncLimit, peerType,
// standaloneEnabled) and the myid file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/common/temp_dir.h"
#include "zkd/server/config.h"

namespace zkd::server {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

constexpr char kBase[] = "dataDir=/d\nclientPort=2181\ninitLimit=10\nsyncLimit=5\n";

ConfigResult parse(const std::string& extra) {
  return parse_config(std::string(kBase) + extra, "zoo.cfg");
}

// The error for a config whose fifth line is `line`.
std::string error_of(const std::string& line) {
  auto r = parse(line + "\n");
  EXPECT_FALSE(r.config) << line;
  return r.error.message();
}

TEST(ConfigEnsemble, ThreeParticipantsAreReplicated) {
  auto r = parse(
      "server.1=zk1.example.com:2888:3888\n"
      "server.2=10.0.0.2:2889:3889\n"
      "server.3=localhost:2890:3890:participant\n");
  ASSERT_TRUE(r.config) << r.error.message();
  const auto& c = *r.config;
  EXPECT_TRUE(c.replicated());
  EXPECT_EQ(c.my_id, 0);  // parse_config reads no myid
  ASSERT_EQ(c.quorum_servers.size(), 3u);
  const QuorumServer& s1 = c.quorum_servers.at(1);
  EXPECT_EQ(s1.id, 1);
  EXPECT_EQ(s1.host, "zk1.example.com");
  EXPECT_EQ(s1.quorum_port, 2888);
  EXPECT_EQ(s1.election_port, 3888);
  EXPECT_FALSE(s1.observer);
  EXPECT_EQ(s1.client_address, "");
  EXPECT_EQ(s1.client_port, 0);
  EXPECT_EQ(c.quorum_servers.at(2).host, "10.0.0.2");
  EXPECT_EQ(c.quorum_servers.at(2).quorum_port, 2889);
  EXPECT_FALSE(c.quorum_servers.at(3).observer);
  EXPECT_EQ(c.servers.at(2), "10.0.0.2:2889:3889");  // verbatim form kept
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
}

TEST(ConfigEnsemble, ObserverAndClientPortForms) {
  auto r = parse(
      "server.1=127.0.0.1:2888:3888;2181\n"
      "server.2=127.0.0.2:2888:3888:observer;127.0.0.2:2182\n"
      "server.3=127.0.0.3:2888:3888:Participant;0.0.0.0:2183\n"
      "server.4=[::1]:2888:3888:observer\n"
      "server.5=127.0.0.5:2888:3888;[::1]:2185\n");
  ASSERT_TRUE(r.config) << r.error.message();
  const auto& s = r.config->quorum_servers;
  EXPECT_EQ(s.at(1).client_address, "");
  EXPECT_EQ(s.at(1).client_port, 2181);
  EXPECT_TRUE(s.at(2).observer);
  EXPECT_EQ(s.at(2).client_address, "127.0.0.2");
  EXPECT_EQ(s.at(2).client_port, 2182);
  EXPECT_FALSE(s.at(3).observer);  // the type is case-insensitive, as in Apache
  EXPECT_EQ(s.at(3).client_address, "0.0.0.0");
  EXPECT_EQ(s.at(4).host, "::1");
  EXPECT_EQ(s.at(4).election_port, 3888);
  EXPECT_TRUE(s.at(4).observer);
  EXPECT_EQ(s.at(5).client_address, "::1");
  EXPECT_EQ(s.at(5).client_port, 2185);
  EXPECT_TRUE(r.config->replicated());  // three participants
}

TEST(ConfigEnsemble, ReplicatedFollowsApachesRule) {
  auto one = parse("server.1=localhost:2888:3888\n");
  ASSERT_TRUE(one.config) << one.error.message();
  EXPECT_FALSE(one.config->replicated());
  ASSERT_EQ(one.warnings.size(), 1u);
  EXPECT_THAT(one.warnings[0], HasSubstr("running standalone"));
  EXPECT_THAT(one.warnings[0], HasSubstr("zoo.cfg:5"));

  auto forced = parse("server.1=localhost:2888:3888\nstandaloneEnabled=false\n");
  ASSERT_TRUE(forced.config) << forced.error.message();
  EXPECT_TRUE(forced.config->replicated());

  auto two = parse("server.1=localhost:2888:3888\nserver.2=localhost:2889:3889\n");
  ASSERT_TRUE(two.config) << two.error.message();
  EXPECT_TRUE(two.config->replicated());
  ASSERT_EQ(two.warnings.size(), 1u);
  EXPECT_THAT(two.warnings[0], HasSubstr("no server failure will be tolerated"));

  auto none = parse("");
  ASSERT_TRUE(none.config) << none.error.message();
  EXPECT_FALSE(none.config->replicated());
}

TEST(ConfigEnsemble, ObserversNeedParticipants) {
  EXPECT_THAT(error_of("server.1=a:1:2:observer\nserver.2=b:1:2:observer\nstandaloneEnabled=false"),
              HasSubstr("every server.N line is an observer"));
  EXPECT_THAT(error_of("server.1=a:1:2\nserver.2=b:1:2:observer"),
              HasSubstr("observers need an ensemble"));
  auto ok = parse("server.1=a:1:2\nserver.2=b:1:2:observer\nstandaloneEnabled=false\n");
  ASSERT_TRUE(ok.config) << ok.error.message();
  EXPECT_TRUE(ok.config->replicated());
}

TEST(ConfigEnsemble, StandaloneEnabledFalseNeedsServerLines) {
  EXPECT_THAT(error_of("standaloneEnabled=false"), HasSubstr("needs server.N lines"));
}

TEST(ConfigEnsemble, InitLimitAndSyncLimitAreRequiredWhenReplicated) {
  const std::string servers = "server.1=a:1:2\nserver.2=b:1:2\nserver.3=c:1:2\n";
  auto no_init = parse_config("dataDir=/d\nclientPort=1\nsyncLimit=5\n" + servers, "zoo.cfg");
  EXPECT_FALSE(no_init.config);
  EXPECT_EQ(no_init.error.message(), "zoo.cfg: initLimit is not set");
  auto no_sync = parse_config("dataDir=/d\nclientPort=1\ninitLimit=5\n" + servers, "zoo.cfg");
  EXPECT_FALSE(no_sync.config);
  EXPECT_EQ(no_sync.error.message(), "zoo.cfg: syncLimit is not set");
  auto zero =
      parse_config("dataDir=/d\nclientPort=1\ninitLimit=0\nsyncLimit=5\n" + servers, "zoo.cfg");
  EXPECT_FALSE(zero.config);
  EXPECT_THAT(zero.error.message(), HasSubstr("zoo.cfg:3: initLimit: must be at least 1"));
  // Standalone: not needed.
  auto standalone = parse_config("dataDir=/d\nclientPort=1\n", "zoo.cfg");
  EXPECT_TRUE(standalone.config) << standalone.error.message();
}

TEST(ConfigEnsemble, PeerTimeoutDefaultsTo500MsAndTakesZero) {
  auto plain = parse("server.1=a:1:2\nserver.2=b:1:2\n");
  ASSERT_TRUE(plain.config) << plain.error.message();
  EXPECT_EQ(plain.config->peer_timeout_ms, 500);
  auto off = parse("server.1=a:1:2\nserver.2=b:1:2\nzkd.peerTimeoutMs=0\n");
  ASSERT_TRUE(off.config) << off.error.message();
  EXPECT_EQ(off.config->peer_timeout_ms, 0);
  EXPECT_EQ(off.warnings, plain.warnings);  // an honoured key: no warning of its own
  EXPECT_THAT(error_of("zkd.peerTimeoutMs=-1"), HasSubstr("zkd.peerTimeoutMs: must be 0 or"));
  EXPECT_THAT(error_of("zkd.peerTimeoutMs=soon"), HasSubstr("is not a number"));
}

TEST(ConfigEnsemble, ApachesPeerProtocolIsChosenAndKeepsSyncLimitsSilence) {
  const std::string servers =
      "tickTime=200\nserver.1=h:2888:3888\nserver.2=h:2889:3889\nserver.3=h:2890:3890\n";
  auto zkd = parse(servers);
  ASSERT_TRUE(zkd.config) << zkd.error.message();
  EXPECT_FALSE(zkd.config->apache_peer_protocol);
  EXPECT_EQ(zkd.config->peer_silence_ms(), 500);
  auto apache = parse(servers + "zkd.peerProtocol=apache\n");
  ASSERT_TRUE(apache.config) << apache.error.message();
  EXPECT_TRUE(apache.config->apache_peer_protocol);
  // Apache's leaders ping each half tick: zkd.peerTimeoutMs cannot apply.
  EXPECT_EQ(apache.config->peer_silence_ms(), 5 * 200);
  EXPECT_THAT(error_of("zkd.peerProtocol=jute"), HasSubstr("must be apache or zkd"));
}

TEST(ConfigEnsemble, ApachesPeerProtocolRefusesWhatItCannotCarryYet) {
  EXPECT_THAT(error_of("zkd.peerProtocol=apache\nquorum.auth.enableSasl=true"),
              HasSubstr("zkd.peerProtocol=apache does not support quorum.auth.enableSasl"));
  EXPECT_THAT(error_of("zkd.peerProtocol=apache\nsslQuorum=true\nssl.quorum.keyStore.location=/k"),
              HasSubstr("does not support sslQuorum"));
}

TEST(ConfigEnsemble, PeerTypeIsStored) {
  auto observer = parse("peerType=observer\n");
  ASSERT_TRUE(observer.config) << observer.error.message();
  EXPECT_TRUE(observer.config->peer_type_observer);
  EXPECT_TRUE(observer.warnings.empty());
  auto participant = parse("peerType=participant\n");
  ASSERT_TRUE(participant.config) << participant.error.message();
  EXPECT_FALSE(participant.config->peer_type_observer);
  EXPECT_THAT(error_of("peerType=leader"), HasSubstr("zoo.cfg:5: peerType: 'leader'"));
}

TEST(ConfigEnsemble, EachBadServerLineNamesFileLineAndKey) {
  struct Case {
    std::string line;
    std::string says;
  };
  const Case cases[] = {
      {"server.2=host", "no quorum and election ports"},
      {"server.2=host:2888", "no election port"},
      {"server.2=host:2888:3888:observer:x", "too many ':'"},
      {"server.2=::1:2888:3888", "too many ':'"},
      {"server.2=[::1:2888:3888", "bad IPv6 address"},
      {"server.2=[::1]x:2888:3888", "bad IPv6 address"},
      {"server.2=:2888:3888", "the host is empty"},
      {"server.2=host:port:3888", "'port' is not a TCP port (the quorum port)"},
      {"server.2=host:2888:70000", "'70000' is not a TCP port (the election port)"},
      {"server.2=host:0:3888", "'0' is not a TCP port (the quorum port)"},
      {"server.2=host:2888:3888:leader", "'leader' is not a peer type"},
      {"server.2=host:2888:3888;", "'' is not a TCP port (the client port)"},
      {"server.2=host:2888:3888;abc", "'abc' is not a TCP port (the client port)"},
      {"server.2=host:2888:3888;a:b:2181", "bad client address"},
      {"server.2=host:2888:3888;:2181", "the client address is empty"},
      {"server.2=host:2888:3888;1;2", "more than one ';'"},
      {"server.2=a:1:2|b:1:2", "several addresses"},
      {"server.x=host:2888:3888", "the server id after 'server.' is not a number"},
      {"server.0=host:2888:3888", "server id 0 is out of range: zkd needs 1..255"},
      {"server.256=host:2888:3888", "server id 256 is out of range"},
      {"server.-1=host:2888:3888", "server id -1 is out of range"},
  };
  for (const Case& c : cases) {
    std::string error = error_of(c.line);
    const std::string key = c.line.substr(0, c.line.find('='));
    EXPECT_THAT(error, HasSubstr("zoo.cfg:5: " + key + ": ")) << c.line;
    EXPECT_THAT(error, HasSubstr(c.says)) << c.line;
  }
  EXPECT_THAT(error_of("server.0=host:2888:3888"), HasSubstr("top byte"));
}

TEST(ConfigEnsemble, DuplicateIdNamesBothLines) {
  std::string error = error_of("server.1=a:1:2\nserver.2=b:1:2\nserver.01=c:1:2");
  EXPECT_THAT(error,
              HasSubstr("zoo.cfg:7: server.01: server id 1 is given twice (also on line 5)"));
}

TEST(ConfigEnsemble, ClientPortMayComeFromTheServerLines) {
  const std::string servers = "server.1=a:1:2;2181\nserver.2=b:1:2;2182\n";
  auto r = parse_config("dataDir=/d\ninitLimit=5\nsyncLimit=2\n" + servers, "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->client_port, 0);  // load_config takes it from this server's line

  // Standalone too (Apache's Docker image): load_config picks the line by myid.
  auto standalone = parse_config("dataDir=/d\nserver.1=a:1:2;2181\n", "zoo.cfg");
  ASSERT_TRUE(standalone.config) << standalone.error.message();
  EXPECT_FALSE(standalone.config->replicated());
  EXPECT_EQ(standalone.config->client_port, 0);

  auto no_ports = parse_config(
      "dataDir=/d\ninitLimit=5\nsyncLimit=2\nserver.1=a:1:2\nserver.2=b:1:2\n", "zoo.cfg");
  EXPECT_FALSE(no_ports.config);
  EXPECT_EQ(no_ports.error.message(), "zoo.cfg: clientPort and secureClientPort are not set");
}

TEST(ConfigEnsemble, ParseNumberFile) {
  EXPECT_EQ(parse_number_file("3"), 3);
  EXPECT_EQ(parse_number_file(" 42 \n"), 42);
  EXPECT_EQ(parse_number_file("\t7\r\n"), 7);
  EXPECT_EQ(parse_number_file("-1"), -1);
  EXPECT_EQ(parse_number_file(""), std::nullopt);
  EXPECT_EQ(parse_number_file(" \n"), std::nullopt);
  EXPECT_EQ(parse_number_file("1 2"), std::nullopt);
  EXPECT_EQ(parse_number_file("x1"), std::nullopt);
  EXPECT_EQ(parse_number_file("99999999999999999999"), std::nullopt);
}

// A temporary directory with a zoo.cfg and a data dir.
class MyIdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = base_ / "data";
    std::filesystem::create_directories(data_);
  }

  void write(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  ConfigResult load(const std::string& extra) {
    write(base_ / "zoo.cfg", "dataDir=" + data_.string() + "\ninitLimit=5\nsyncLimit=2\n" +
                                 "server.1=127.0.0.1:2888:3888;2181\n"
                                 "server.2=127.0.0.1:2889:3889;127.0.0.1:2182\n"
                                 "server.3=127.0.0.1:2890:3890:observer\n" +
                                 extra);
    return load_config(base_ / "zoo.cfg");
  }
  std::string myid_path() const { return (data_ / "myid").string(); }

  zk::test::TempDir temp_{"zkd_myid"};
  const std::filesystem::path& base_ = temp_.path();
  std::filesystem::path data_;
};

TEST_F(MyIdTest, LoadReadsMyIdAndTakesTheClientPortFromThisServersLine) {
  write(data_ / "myid", "2\n");
  auto r = load("");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->my_id, 2);
  EXPECT_EQ(r.config->client_port, 2182);
  EXPECT_EQ(r.config->client_port_address, "127.0.0.1");
}

TEST_F(MyIdTest, ClientPortKeyWinsWhenItAgreesWithTheLine) {
  write(data_ / "myid", "1\n");
  auto r = load("clientPort=2181\nclientPortAddress=127.0.0.1\n");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->my_id, 1);
  EXPECT_EQ(r.config->client_port, 2181);
  EXPECT_EQ(r.config->client_port_address, "127.0.0.1");

  auto differs = load("clientPort=2999\n");
  EXPECT_FALSE(differs.config);
  EXPECT_THAT(differs.error.message(),
              HasSubstr("clientPort 2999 differs from the client port 2181"));
}

TEST_F(MyIdTest, ThisServersLineWithoutClientPortNeedsTheKey) {
  write(data_ / "myid", "3");
  auto r = load("");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(),
              HasSubstr("clientPort is not set, and server.3 (this server, per myid)"));
  auto with_key = load("clientPort=2183\npeerType=participant\n");
  ASSERT_TRUE(with_key.config) << with_key.error.message();
  EXPECT_EQ(with_key.config->client_port, 2183);
  EXPECT_TRUE(with_key.config->quorum_servers.at(3).observer);
  EXPECT_THAT(with_key.warnings, Contains(HasSubstr("the server.N line wins")));
}

TEST_F(MyIdTest, MissingMyIdNamesTheFile) {
  auto r = load("");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr(myid_path() + ": cannot read this server's id"));
}

TEST_F(MyIdTest, GarbageMyIdNamesTheFile) {
  write(data_ / "myid", "two\n");
  auto r = load("");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr(myid_path() + ": 'two' is not a server id"));
}

TEST_F(MyIdTest, MyIdIsReadAsApacheReadsIt) {
  // Apache 3.8: the first line, parsed by Long.parseLong; a space anywhere,
  // an empty file or an empty first line stop start-up.
  EXPECT_EQ(parse_my_id("2"), 2);
  EXPECT_EQ(parse_my_id("2\n"), 2);
  EXPECT_EQ(parse_my_id("2\r\nignored"), 2);
  EXPECT_EQ(parse_my_id("+2"), 2);
  EXPECT_EQ(parse_my_id(" 2"), std::nullopt);
  EXPECT_EQ(parse_my_id("2 \n"), std::nullopt);
  EXPECT_EQ(parse_my_id(""), std::nullopt);
  EXPECT_EQ(parse_my_id("\n2\n"), std::nullopt);
  EXPECT_EQ(parse_my_id("two"), std::nullopt);

  write(data_ / "myid", " 1 ");
  auto r = load("");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr(myid_path() + ": ' 1 ' is not a server id"));
  EXPECT_THAT(r.error.message(), HasSubstr("no spaces"));
}

TEST_F(MyIdTest, IdWithoutServerLineNamesBothFiles) {
  write(data_ / "myid", "7");
  auto r = load("");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr(myid_path() + ": server id 7 has no server.7 line in " +
                                           (base_ / "zoo.cfg").string()));
}

TEST_F(MyIdTest, StandaloneNeedsNoMyId) {
  write(base_ / "zoo.cfg", "dataDir=" + data_.string() + "\nclientPort=2181\n");
  auto r = load_config(base_ / "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->my_id, 0);
}

// Apache's Docker image: one server line carrying the client port, no
// clientPort, standaloneEnabled=true, and myid written by the entrypoint.
constexpr char kDockerDefault[] =
    "tickTime=2000\ninitLimit=5\nsyncLimit=2\nautopurge.snapRetainCount=3\n"
    "autopurge.purgeInterval=0\nmaxClientCnxns=60\nstandaloneEnabled=true\n"
    "admin.enableServer=true\nserver.1=localhost:2888:3888;2181\n";

TEST_F(MyIdTest, DockerDefaultRunsStandaloneOnTheLinesClientPort) {
  write(data_ / "myid", "1\n");
  write(base_ / "zoo.cfg", "dataDir=" + data_.string() + "\n" + kDockerDefault);
  auto r = load_config(base_ / "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_FALSE(r.config->replicated());
  EXPECT_EQ(r.config->client_port, 2181);
  EXPECT_EQ(r.config->client_port_address, "");  // every address, as Apache's 0.0.0.0
  EXPECT_EQ(r.config->my_id, 0);                 // standalone session ids carry id 1
}

TEST_F(MyIdTest, StandaloneWithoutAPortFromMyIdIsRefused) {
  // Apache starts without any client port here; zkd says what is missing.
  write(base_ / "zoo.cfg", "dataDir=" + data_.string() + "\n" + kDockerDefault);
  auto no_myid = load_config(base_ / "zoo.cfg");
  EXPECT_FALSE(no_myid.config);
  EXPECT_THAT(no_myid.error.message(),
              HasSubstr("clientPort is not set, and " + myid_path() + " does not exist"));
  EXPECT_THAT(no_myid.error.message(), HasSubstr("set clientPort"));

  write(data_ / "myid", "2\n");
  auto other_id = load_config(base_ / "zoo.cfg");
  EXPECT_FALSE(other_id.config);
  EXPECT_THAT(other_id.error.message(),
              HasSubstr("server.2 (this server, per " + myid_path() + ") does not exist"));
}

TEST_F(MyIdTest, StandaloneWithClientPortReadsMyIdOnlyWhenPresent) {
  write(base_ / "zoo.cfg", "dataDir=" + data_.string() + "\nclientPort=2181\n" + kDockerDefault);
  auto r = load_config(base_ / "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->client_port, 2181);

  write(data_ / "myid", "one\n");  // Apache refuses a myid that is not a number
  auto garbage = load_config(base_ / "zoo.cfg");
  EXPECT_FALSE(garbage.config);
  EXPECT_THAT(garbage.error.message(), HasSubstr(myid_path() + ": 'one' is not a server id"));

  write(data_ / "myid", "1");
  write(base_ / "zoo.cfg", "dataDir=" + data_.string() + "\nclientPort=2999\n" + kDockerDefault);
  auto differs = load_config(base_ / "zoo.cfg");
  EXPECT_FALSE(differs.config);
  EXPECT_THAT(differs.error.message(),
              HasSubstr("clientPort 2999 differs from the client port 2181"));
}

TEST_F(MyIdTest, ReadMyIdOnAParsedConfig) {
  auto parsed = parse_config("dataDir=" + data_.string() +
                                 "\nclientPort=1\ninitLimit=5\nsyncLimit=2\n"
                                 "server.5=a:1:2\nserver.9=b:1:2\n",
                             "zoo.cfg");
  ASSERT_TRUE(parsed.config) << parsed.error.message();
  write(data_ / "myid", "9\n");
  EXPECT_TRUE(read_my_id(*parsed.config).ok());
  EXPECT_EQ(parsed.config->my_id, 9);
  write(data_ / "myid", "4\n");
  EXPECT_THAT(read_my_id(*parsed.config).message(),
              HasSubstr("no server.4 line in the configuration"));
}

}  // namespace
}  // namespace zkd::server
