// SPDX-License-Identifier: Apache-2.0
#include "zkd/view/four_letter_format.h"

#include <gtest/gtest.h>

namespace zkd::server {
namespace {

TEST(JavaDouble, PrintsLikeDoubleToStringAfterRounding) {
  EXPECT_EQ(java_double(0.0), "0.0");
  EXPECT_EQ(java_double(2.0), "2.0");
  EXPECT_EQ(java_double(1.5), "1.5");
  EXPECT_EQ(java_double(118.0 / 3.0), "39.3333");
  EXPECT_EQ(java_double(2.0 / 3.0), "0.6667");
}

TEST(JavaHex, LowercaseWithoutPaddingAndTwosComplement) {
  EXPECT_EQ(java_hex(0), "0");
  EXPECT_EQ(java_hex(0x1000004c2160000), "1000004c2160000");
  EXPECT_EQ(java_hex(-1), "ffffffffffffffff");
}

TEST(JavaDate, FormatsLikeDateToStringInUtc) {
  EXPECT_EQ(java_date(0), "Thu Jan 01 00:00:00 UTC 1970");
  EXPECT_EQ(java_date(1700000000123), "Tue Nov 14 22:13:20 UTC 2023");
}

ServerSummary sample_summary() {
  ServerSummary s;
  s.version = "3.8.0-zk-0.1.0, built on 2024-01-01 00:00 UTC";
  s.latency.record(1);
  s.latency.record(2);
  s.packets_received = 7;
  s.packets_sent = 6;
  s.connections = 2;
  s.last_zxid = 0x1f;
  s.node_count = 5;
  return s;
}

TEST(Srvr, MatchesApacheLayout) {
  EXPECT_EQ(format_srvr(sample_summary()),
            "Zookeeper version: 3.8.0-zk-0.1.0, built on 2024-01-01 00:00 UTC\n"
            "Latency min/avg/max: 1/1.5/2\n"
            "Received: 7\n"
            "Sent: 6\n"
            "Connections: 2\n"
            "Outstanding: 0\n"
            "Zxid: 0x1f\n"
            "Mode: standalone\n"
            "Node count: 5\n");
}

TEST(Srvr, FreshServerShowsZeroLatencies) {
  ServerSummary s;
  s.version = "v";
  EXPECT_NE(format_srvr(s).find("Latency min/avg/max: 0/0.0/0\n"), std::string::npos);
}

ConnectionSnapshot sample_connection() {
  ConnectionSnapshot c;
  c.remote = "/127.0.0.1:5000";
  c.received = 3;
  c.sent = 2;
  c.session_id = 0x100000000000001;
  c.last_operation = "GETD";
  c.established_ms = 1000;
  c.timeout_ms = 30000;
  c.last_cxid = 0x10;
  c.last_zxid = 0x5;
  c.last_response_ms = 2000;
  c.latency.record(4);
  c.latency.record(1);
  return c;
}

TEST(Cons, LongFormListsSessionDetails) {
  EXPECT_EQ(format_connection(sample_connection(), false),
            " /127.0.0.1:5000[1](queued=0,recved=3,sent=2,sid=0x100000000000001,lop=GETD,"
            "est=1000,to=30000,lcxid=0x10,lzxid=0x5,lresp=2000,llat=1,minlat=1,avglat=2,"
            "maxlat=4)");
  EXPECT_EQ(format_cons({sample_connection()}),
            format_connection(sample_connection(), false) + "\n\n");
}

TEST(Cons, ConnectionWithoutSessionStopsAfterSent) {
  ConnectionSnapshot c;
  c.remote = "/127.0.0.1:5001";
  EXPECT_EQ(format_connection(c, false), " /127.0.0.1:5001[1](queued=0,recved=0,sent=0)");
}

TEST(Stat, ListsClientsBriefThenStats) {
  std::string text = format_stat(sample_summary(), {sample_connection()});
  EXPECT_EQ(text,
            "Zookeeper version: 3.8.0-zk-0.1.0, built on 2024-01-01 00:00 UTC\n"
            "Clients:\n"
            " /127.0.0.1:5000[1](queued=0,recved=3,sent=2)\n"
            "\n"
            "Latency min/avg/max: 1/1.5/2\n"
            "Received: 7\n"
            "Sent: 6\n"
            "Connections: 2\n"
            "Outstanding: 0\n"
            "Zxid: 0x1f\n"
            "Mode: standalone\n"
            "Node count: 5\n");
}

TEST(Mntr, TabSeparatedZkPrefixedLines) {
  EXPECT_EQ(format_mntr({{"version", "v"}, {"znode_count", "5"}}),
            "zk_version\tv\nzk_znode_count\t5\n");
}

TEST(Conf, ApacheKeysInApacheOrder) {
  ConfSnapshot c;
  c.client_port = 2181;
  c.data_dir = "/var/zk";
  c.data_log_dir = "/var/zklog";
  c.tick_time_ms = 2000;
  c.max_client_cnxns = 60;
  c.min_session_timeout_ms = 4000;
  c.max_session_timeout_ms = 40000;
  EXPECT_EQ(format_conf(c),
            "clientPort=2181\n"
            "secureClientPort=-1\n"
            "dataDir=/var/zk/version-2\n"
            "dataDirSize=0\n"
            "dataLogDir=/var/zklog/version-2\n"
            "dataLogSize=0\n"
            "tickTime=2000\n"
            "maxClientCnxns=60\n"
            "minSessionTimeout=4000\n"
            "maxSessionTimeout=40000\n"
            "clientPortListenBacklog=-1\n"
            "serverId=0\n");
}

TEST(Conf, AnEnsembleMemberAddsItsQuorumAndTheMembership) {
  ConfSnapshot c;
  c.client_port = 21181;
  c.server_id = 1;
  c.quorum =
      ConfSnapshot::Quorum{.init_limit = 10,
                           .sync_limit = 5,
                           .election_port = 21381,
                           .quorum_port = 21281,
                           .observer = false,
                           .membership = "server.1=127.0.0.1:21281:21381:participant\nversion=0"};
  // Apache 3.8.0's tail of conf on the same member: no line end after the version.
  EXPECT_TRUE(
      format_conf(c).ends_with("serverId=1\n"
                               "initLimit=10\n"
                               "syncLimit=5\n"
                               "electionAlg=3\n"
                               "electionPort=21381\n"
                               "quorumPort=21281\n"
                               "peerType=0\n"
                               "membership: \n"
                               "server.1=127.0.0.1:21281:21381:participant\nversion=0"))
      << format_conf(c);
}

TEST(Envi, HeaderThenKeyValues) {
  EXPECT_EQ(format_envi({{"zookeeper.version", "v"}, {"os.name", "Linux"}}),
            "Environment:\nzookeeper.version=v\nos.name=Linux\n");
}

TEST(Dirs, TwoSizeLines) { EXPECT_EQ(format_dirs(10, 20), "datadir_size: 10\nlogdir_size: 20\n"); }

TEST(Watches, SummaryAndListsEndAsApacheDoes) {
  EXPECT_EQ(format_wchs(1, 2, 3), "1 connections watching 2 paths\nTotal watches:3\n");
  EXPECT_EQ(format_wchc({{0x10, {"/a", "/b"}}}), "0x10\n\t/a\n\t/b\n\n");
  EXPECT_EQ(format_wchp({{"/a", {0x10, 0x11}}}), "/a\n\t0x10\n\t0x11\n\n");
  EXPECT_EQ(format_wchc({}), "\n");
}

TEST(Dump, SessionsEphemeralsAndConnections) {
  DumpSnapshot d;
  d.session_buckets.push_back({0, {0x10, 0x11}});
  d.session_count = 2;
  d.ephemerals.push_back({0x10, {"/e1", "/e2"}});
  ConnectionSnapshot c;
  c.remote = "/127.0.0.1:1";
  d.connection_buckets.push_back({0, {c}});
  d.connection_count = 1;
  EXPECT_EQ(format_dump(d),
            "SessionTracker dump:\n"
            "Session Sets (1)/(2):\n"
            "2 expire at Thu Jan 01 00:00:00 UTC 1970:\n"
            "\t0x10\n"
            "\t0x11\n"
            "ephemeral nodes dump:\n"
            "Sessions with Ephemerals (1):\n"
            "0x10:\n"
            "\t/e1\n"
            "\t/e2\n"
            "Connections dump:\n"
            "Connections Sets (1)/(1):\n"
            "1 expire at Thu Jan 01 00:00:00 UTC 1970:\n"
            "\t /127.0.0.1:1[1](queued=0,recved=0,sent=0)\n");
}

}  // namespace
}  // namespace zkd::server
