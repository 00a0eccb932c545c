// SPDX-License-Identifier: Apache-2.0
// `zklab up --tls --sasl` as a user runs it: the real zklab, zkd and zkctl
// processes on a lab whose clients and peers all speak TLS with certificates
// of the lab's own CA and must authenticate with SASL (DIGEST-MD5, users in
// the lab's JAAS file). zklab itself must see the nodes (srvr over TLS), run
// `check` under a nemesis (its clients over TLS and SASL, restarted nodes
// rejoining over TLS and quorum SASL), and a client gets in only with the
// lab's client certificate (its subject an x509 id) and SASL user; a
// plaintext client gets nothing, one without SASL no answer.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/zklab/zklab_test_util.h"
#include "zklab/process/four_letter_word.h"
#include "zklab/process/zkd_process.h"

namespace {

using namespace std::chrono_literals;
using zk::lab::testing::count_role;
using zk::lab::testing::Outcome;
using zk::lab::testing::read_file;
using zk::lab::testing::Status;

class ZklabTlsTest : public zk::lab::testing::ZklabFixture {
 protected:
  // zkctl on the lab's TLS client identity (or, with `tls` false, plaintext).
  // zkctl on the lab's TLS client identity and SASL user (or without).
  zk::lab::RunResult zkctl(const std::string& connect, std::vector<std::string> args,
                           bool tls = true, bool sasl = true) {
    std::vector<std::string> all = {"-s", connect};
    if (tls) {
      all.insert(all.end(), {"--tls-ca", (lab_ / "tls" / "ca.pem").string(), "--tls-cert",
                             (lab_ / "tls" / "client.pem").string()});
    }
    if (sasl) all.insert(all.end(), {"--jaas", (lab_ / "jaas.conf").string()});
    all.insert(all.end(), args.begin(), args.end());
    return zk::lab::run_zkd(ZKCTL_BINARY, all, 30s);
  }
};

TEST_F(ZklabTlsTest, TheWholeLabRunsOnTlsAndSaslAndZklabStillSeesAndChecksIt) {
  expect_clean_down_ = true;
  Outcome up = zklab({"up", "-n", "3", "--tls", "--sasl"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  EXPECT_NE(up.output.find("TLS and SASL only (clients and peers)"), std::string::npos)
      << up.output;
  EXPECT_NE(up.output.find("--jaas " + (lab_ / "jaas.conf").string()), std::string::npos)
      << up.output;

  // Every node serves under one leader, as zklab sees them over TLS.
  auto [status, ok] = wait_status([](const Status& s) {
    return count_role(s, "leader") == 1 && count_role(s, "follower") == 2;
  });
  ASSERT_TRUE(ok) << zk::lab::testing::describe(status);

  // No plaintext port anywhere: the client port is the secure one, and the
  // peers are on TLS.
  const std::string cfg = read_file(lab_ / "n1" / "zoo.cfg");
  EXPECT_EQ(cfg.find("clientPort="), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("secureClientPort=" + std::to_string(status.at(1).client_port)),
            std::string::npos)
      << cfg;
  EXPECT_NE(cfg.find("sslQuorum=true"), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("quorum.auth.serverRequireSasl=true"), std::string::npos) << cfg;
  EXPECT_NE(read_file(lab_ / "n1" / "zkd.log").find("authenticated with quorum SASL as zkpeer"),
            std::string::npos);

  // A client of the lab's CA gets in, as x509 id CN=zklab,O=zk and sasl id
  // zklab.
  const std::string connect = status.at(1).address() + "," + status.at(2).address();
  auto created = zkctl(connect, {"create", "/tls", "secret"});
  ASSERT_EQ(created.status, 0) << created.output;
  // `auth`: whatever authenticated ids the session has; a TLS session has
  // its certificate's.
  auto acl = zkctl(connect, {"setacl", "/tls", "auth::cdrwa"});
  ASSERT_EQ(acl.status, 0) << acl.output;
  auto listed = zkctl(connect, {"getacl", "/tls"});
  ASSERT_EQ(listed.status, 0) << listed.output;
  EXPECT_NE(listed.output.find("x509:CN=zklab,O=zk:cdrwa\n"), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("sasl:zklab:cdrwa\n"), std::string::npos) << listed.output;
  auto got = zkctl(connect, {"get", "/tls"});
  ASSERT_EQ(got.status, 0) << got.output;
  EXPECT_EQ(got.output, "secret\n");

  // Plaintext gets nothing: no session, and no answer to a four-letter word;
  // TLS without SASL no answer to a request (enforce.auth).
  auto plain =
      zkctl(status.at(1).address(), {"--connect-timeout", "2000", "get", "/tls"}, false, false);
  EXPECT_NE(plain.status, 0) << plain.output;
  auto unauthenticated = zkctl(connect, {"get", "/tls"}, true, false);
  EXPECT_EQ(WEXITSTATUS(unauthenticated.status), 9) << unauthenticated.output;
  EXPECT_NE(unauthenticated.output.find("failed to authenticate"), std::string::npos)
      << unauthenticated.output;
  auto word = zk::lab::four_letter_word(
      "127.0.0.1", static_cast<uint16_t>(status.at(1).client_port), "ruok", 5s);
  EXPECT_EQ(word.value_or(""), "");  // closed without a byte

  // zklab's check runs its clients over TLS and its nemesis kills nodes,
  // whose peers then meet again over TLS.
  Outcome check = zklab({"check", "--duration", "4", "--seed", "3", "--nemesis", "kill"}, 90s);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("\nverdict: ok\n"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("killed node"), std::string::npos) << check.output;
}

}  // namespace
