// SPDX-License-Identifier: Apache-2.0
// The zoo.cfg key registry (zkd/server/config_keys.h) as parse_config applies
// it, and docs/zoo-cfg.md against it.
#include "zkd/server/config_keys.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "tests/common/temp_dir.h"
#include "zkd/server/config.h"

namespace zkd::server {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr std::string_view kBase = "dataDir=/d\nclientPort=2181\n";

ConfigResult with_line(const std::string& line) {
  return parse_config(std::string(kBase) + line + "\n", "zoo.cfg");
}

TEST(ConfigKeys, EachKeyIsListedOnceWithAReason) {
  std::set<std::string_view> seen;
  for (const ConfigKey& entry : config_keys()) {
    EXPECT_TRUE(seen.insert(entry.key).second) << entry.key << " is listed twice";
    EXPECT_FALSE(entry.note.empty()) << entry.key;
  }
}

// Honoured means acted on: an honoured entry has an apply function, and
// only an honoured one does.
TEST(ConfigKeys, OnlyHonouredKeysHaveAnApplyFunction) {
  for (const ConfigKey& entry : config_keys()) {
    EXPECT_EQ(entry.key_class == KeyClass::kHonoured, entry.apply != nullptr) << entry.key;
  }
}

// A password path naming a directory is refused with the line, not thrown.
TEST(ConfigKeys, APasswordPathThatIsADirectoryIsRefused) {
  zk::test::TempDir dir("zkd-password-dir");
  const auto r = parse_config(
      "dataDir=/d\nclientPort=2181\nssl.keyStore.passwordPath=" + dir.path().string() + "\n",
      "zoo.cfg");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr("zoo.cfg:3: ssl.keyStore.passwordPath: cannot read " +
                                           dir.path().string() + ": a directory"));
}

TEST(ConfigKeys, ExactEntriesWinOverPatterns) {
  ASSERT_NE(find_config_key("ssl.quorum.ciphersuites"), nullptr);
  EXPECT_EQ(find_config_key("ssl.quorum.ciphersuites")->key, "ssl.quorum.ciphersuites");
  ASSERT_NE(find_config_key("ssl.noSuchKey"), nullptr);
  EXPECT_EQ(find_config_key("ssl.noSuchKey")->key, "ssl.*");
  ASSERT_NE(find_config_key("metricsProvider.exportJvmInfo"), nullptr);
  EXPECT_EQ(find_config_key("metricsProvider.exportJvmInfo")->key, "metricsProvider.exportJvmInfo");
  EXPECT_EQ(find_config_key("ssl."), nullptr);
  EXPECT_EQ(find_config_key("frobnicate"), nullptr);
}

TEST(ConfigKeys, SecurityAndMembershipKeysAreRefusedNamingLineAndKey) {
  for (const std::string line : {
           "ssl.someFutureKey=x",
           "ssl.context.supplier.class=com.example.Supplier",
           "ssl.authProvider=custom",
           "authProvider.ldap=com.example.LdapAuthenticationProvider",
           "quorum.auth.someFutureKey=true",
           "kerberos.someFutureKey=true",
           "group.1=1:2:3",
           "weight.1=2",
           "multiAddress.enabled=true",
           "electionAlg=0",
       }) {
    auto r = with_line(line);
    EXPECT_FALSE(r.config) << line << " was accepted";
    EXPECT_THAT(r.error.message(), HasSubstr("zoo.cfg:3: " + line.substr(0, line.find('=')) + ": "))
        << line;
  }
}

// As Apache: requiring quorum SASL without enabling it is an error.
TEST(ConfigKeys, QuorumSaslRequirementsNeedQuorumSasl) {
  for (const char* key : {"learnerRequireSasl", "serverRequireSasl"}) {
    const std::string line = std::string("quorum.auth.") + key + "=true";
    EXPECT_THAT(with_line(line).error.message(), HasSubstr("needs quorum.auth.enableSasl=true"))
        << key;
    auto enabled = with_line("quorum.auth.enableSasl=true\n" + line);
    ASSERT_TRUE(enabled.config) << enabled.error.message();
    EXPECT_TRUE(enabled.config->quorum_sasl);
  }
}

TEST(ConfigKeys, RefusalSaysWhyAndWhatToDo) {
  auto tls = with_line("multiAddress.enabled=true");
  EXPECT_THAT(tls.error.message(), HasSubstr("multiAddress.enabled"));
  auto dynamic = with_line("dynamicConfigFile=/nonexistent/zoo.cfg.dynamic");
  EXPECT_THAT(dynamic.error.message(),
              HasSubstr("zoo.cfg:3: dynamicConfigFile: cannot read /nonexistent/zoo.cfg.dynamic"));
}

// Apache 3.5+ with reconfigEnabled moves the server.N lines to
// zoo.cfg.dynamic.<version>: zkd reads them there, and the version too.
class DynamicConfigFile : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    return dir_.write(name, text);
  }
  zk::test::TempDir dir_{"zkd-dynamic-config"};
};

TEST_F(DynamicConfigFile, ServerLinesAndVersionComeFromTheFile) {
  const std::string file = write("zoo.cfg.dynamic.100000000",
                                 "server.1=127.0.0.1:2888:3888:participant;0.0.0.0:2181\n"
                                 "server.2=127.0.0.1:2889:3889:participant;0.0.0.0:2182\n"
                                 "server.3=127.0.0.1:2890:3890:observer;0.0.0.0:2183\n");
  auto r = parse_config(
      "dataDir=/d\ninitLimit=10\nsyncLimit=5\nreconfigEnabled=true\ndynamicConfigFile=" + file +
          "\n",
      "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->quorum_servers.size(), 3u);
  EXPECT_TRUE(r.config->quorum_servers.at(3).observer);
  EXPECT_EQ(r.config->config_version, 0x100000000);
  EXPECT_TRUE(r.config->replicated());
  // A version line wins over the name.
  write("zoo.cfg.dynamic.100000000",
        "server.1=127.0.0.1:2888:3888;2181\nserver.2=127.0.0.1:2889:3889;2182\n"
        "version=200000005\n");
  r = parse_config("dataDir=/d\ninitLimit=10\nsyncLimit=5\ndynamicConfigFile=" + file + "\n",
                   "zoo.cfg");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->config_version, 0x200000005);
}

TEST_F(DynamicConfigFile, ErrorsNameTheFileAndLine) {
  const std::string bad = write("zoo.cfg.dynamic.1", "server.1=127.0.0.1:2888:3888\nserver.2=x\n");
  auto r = parse_config("dataDir=/d\ndynamicConfigFile=" + bad + "\n", "zoo.cfg");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(), HasSubstr(bad + ":2: server.2: "));
  const std::string other = write("zoo.cfg.dynamic.2", "tickTime=2000\n");
  r = parse_config("dataDir=/d\ndynamicConfigFile=" + other + "\n", "zoo.cfg");
  EXPECT_THAT(r.error.message(),
              HasSubstr(other + ":1: tickTime: a dynamic configuration file holds"));
  // Server lines in both places: which would count is not guessed.
  const std::string good = write("zoo.cfg.dynamic.3", "server.1=a:1:2\nserver.2=b:1:2\n");
  r = parse_config("dataDir=/d\nserver.1=a:1:2\ndynamicConfigFile=" + good + "\n", "zoo.cfg");
  EXPECT_FALSE(r.config);
  EXPECT_THAT(r.error.message(),
              HasSubstr("zoo.cfg:3: dynamicConfigFile: zoo.cfg has server.N lines too"));
}

TEST(ConfigKeys, DefaultValuesOfRefusedKeysAreAccepted) {
  for (const std::string line : {
           "sslQuorum=false",
           "client.portUnification=false",
           "admin.forceHttps=false",
           "admin.portUnification=false",
           "multiAddress.enabled=false",
           "skipACL=no",
           "electionAlg=3",
           "quorum.auth.enableSasl=false",
           "DigestAuthenticationProvider.enabled=true",
           "authProvider.1=org.apache.zookeeper.server.auth.DigestAuthenticationProvider",
       }) {
    auto r = with_line(line);
    EXPECT_TRUE(r.config) << line << ": " << r.error.message();
    EXPECT_THAT(r.warnings, IsEmpty()) << line;
  }
}

TEST(ConfigKeys, SaslSettingsAreTaken) {
  auto r = with_line(
      "authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider\n"
      "superUser=admin\nkerberos.removeHostFromPrincipal=true");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_TRUE(r.config->sasl_provider);
  EXPECT_EQ(r.config->sasl_super_user, "admin");
  EXPECT_TRUE(r.config->kerberos_remove_host);
  EXPECT_FALSE(r.config->kerberos_remove_realm);
}

TEST(ConfigKeys, ClientTlsSettingsAreTaken) {
  auto r = with_line(
      "secureClientPort=2281\nsecureClientPortAddress=127.0.0.1\n"
      "ssl.keyStore.location=/k.p12\nssl.keyStore.password=pw\nssl.keyStore.type=PKCS12\n"
      "ssl.trustStore.location=/t.pem\nssl.clientAuth=want\nssl.protocol=TLSv1.3\n"
      "ssl.ciphersuites=TLS_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\n"
      "authProvider.x509=org.apache.zookeeper.server.auth.X509AuthenticationProvider\n"
      "X509AuthenticationProvider.superUser=CN=admin\nclient.certReload=true");
  ASSERT_TRUE(r.config) << r.error.message();
  const ServerConfig& c = *r.config;
  EXPECT_EQ(c.secure_client_port, 2281);
  EXPECT_EQ(c.secure_client_port_address, "127.0.0.1");
  EXPECT_EQ(c.client_tls_settings.key_store.location, "/k.p12");
  EXPECT_EQ(c.client_tls_settings.key_store.password, "pw");
  EXPECT_EQ(c.client_tls_settings.key_store.type, "PKCS12");
  EXPECT_EQ(c.client_tls_settings.trust_store.location, "/t.pem");
  EXPECT_EQ(c.client_tls_settings.client_auth, net::TlsSettings::ClientAuth::kWant);
  EXPECT_EQ(c.client_tls_settings.protocols, (std::vector<std::string>{"TLSv1.3", "TLSv1.2"}));
  EXPECT_EQ(c.client_tls_settings.cipher_suites,
            (std::vector<std::string>{"TLS_AES_128_GCM_SHA256",
                                      "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}));
  EXPECT_TRUE(c.client_tls_settings.reload);
  EXPECT_EQ(c.x509_super_user, "CN=admin");
}

// As Apache: secureClientPort alone is a server for TLS clients only.
TEST(ConfigKeys, SecureClientPortAloneMeansNoPlaintextPort) {
  auto standalone =
      parse_config("dataDir=/d\nsecureClientPort=2281\nssl.keyStore.location=/k.pem\n", "zoo.cfg");
  ASSERT_TRUE(standalone.config) << standalone.error.message();
  EXPECT_FALSE(standalone.config->plaintext_clients);
  EXPECT_EQ(standalone.config->secure_client_port, 2281);

  auto with_plain = with_line("secureClientPort=2281\nssl.keyStore.location=/k.pem");
  ASSERT_TRUE(with_plain.config) << with_plain.error.message();
  EXPECT_TRUE(with_plain.config->plaintext_clients);

  auto neither = parse_config("dataDir=/d\n", "zoo.cfg");
  EXPECT_EQ(neither.error.message(), "zoo.cfg: clientPort and secureClientPort are not set");
}

TEST(ConfigKeys, EnabledProtocolsWinOverProtocolWhateverTheOrder) {
  auto r = with_line(
      "secureClientPort=2281\nssl.keyStore.location=/k.pem\n"
      "ssl.enabledProtocols=TLSv1.2\nssl.protocol=TLSv1.3");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_EQ(r.config->client_tls_settings.protocols, std::vector<std::string>{"TLSv1.2"});
}

TEST(ConfigKeys, EnforcedAuthenticationNeedsSchemesZkdServes) {
  auto r = with_line("enforce.auth.enabled=true\nenforce.auth.schemes=sasl, x509");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_TRUE(r.config->enforce_auth);
  EXPECT_EQ(r.config->enforce_auth_schemes, (std::vector<std::string>{"sasl", "x509"}));
  auto old = with_line("sessionRequireClientSASLAuth=true");
  ASSERT_TRUE(old.config) << old.error.message();
  EXPECT_TRUE(old.config->enforce_auth);
  EXPECT_EQ(old.config->enforce_auth_schemes, std::vector<std::string>{"sasl"});
  EXPECT_THAT(with_line("enforce.auth.enabled=true").error.message(),
              HasSubstr("enforce.auth.schemes must name the schemes"));
  EXPECT_THAT(with_line("enforce.auth.enabled=true\nenforce.auth.schemes=ldap").error.message(),
              HasSubstr("authentication scheme ldap is not available"));
  auto folklore = with_line("requireClientAuthScheme=sasl");
  ASSERT_TRUE(folklore.config) << folklore.error.message();
  ASSERT_EQ(folklore.warnings.size(), 1u);
  EXPECT_THAT(folklore.warnings[0], HasSubstr("set enforce.auth.enabled=true"));
}

TEST(ConfigKeys, QuorumTlsSettingsAreTaken) {
  auto r = with_line(
      "sslQuorum=true\nportUnification=true\nssl.quorum.keyStore.location=/q.pem\n"
      "ssl.quorum.trustStore.location=/ca.pem\nssl.quorum.protocol=TLSv1.2\n"
      "ssl.quorum.hostnameVerification=false\nsslQuorumReloadCertFiles=true");
  ASSERT_TRUE(r.config) << r.error.message();
  const ServerConfig& c = *r.config;
  EXPECT_TRUE(c.ssl_quorum);
  EXPECT_TRUE(c.quorum_port_unification);
  EXPECT_EQ(c.quorum_tls_settings.key_store.location, "/q.pem");
  EXPECT_EQ(c.quorum_tls_settings.trust_store.location, "/ca.pem");
  EXPECT_EQ(c.quorum_tls_settings.protocols, std::vector<std::string>{"TLSv1.2"});
  EXPECT_TRUE(c.quorum_tls_settings.reload);
  EXPECT_FALSE(c.quorum_verify_host);
  EXPECT_FALSE(c.quorum_verify_client_host.has_value());
  EXPECT_TRUE(c.client_tls_settings.key_store.location.empty());  // the client port's are apart
  EXPECT_THAT(with_line("sslQuorum=true").error.message(),
              HasSubstr("sslQuorum needs ssl.quorum.keyStore.location"));
}

TEST(ConfigKeys, AnHttpsAdminServerNeedsTheQuorumKeyStore) {
  auto r = with_line(
      "admin.forceHttps=true\nadmin.needClientAuth=true\n"
      "ssl.quorum.keyStore.location=/q.pem");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_TRUE(r.config->admin_force_https);
  EXPECT_TRUE(r.config->admin_need_client_auth);
  EXPECT_THAT(with_line("admin.forceHttps=true").error.message(),
              HasSubstr("admin.forceHttps needs ssl.quorum.keyStore.location"));
  EXPECT_TRUE(with_line("admin.forceHttps=true\nadmin.enableServer=false").config);
}

TEST(ConfigKeys, ATlsPortNeedsAKeyStore) {
  EXPECT_THAT(with_line("secureClientPort=2281").error.message(),
              HasSubstr("secureClientPort needs ssl.keyStore.location"));
  EXPECT_THAT(with_line("client.portUnification=true").error.message(),
              HasSubstr("client.portUnification needs ssl.keyStore.location"));
  EXPECT_THAT(with_line("secureClientPort=2281\nssl.keyStore.location=/k.pem\nssl.clientAuth=maybe")
                  .error.message(),
              HasSubstr("ssl.clientAuth: 'maybe' is not need, want or none"));
}

TEST(ConfigKeys, OnlyTheValueThatCountsIsRefused) {
  // java.util.Properties: the last of two lines with one key wins.
  auto overridden = with_line("multiAddress.enabled=true\nmultiAddress.enabled=false");
  EXPECT_TRUE(overridden.config) << overridden.error.message();
  auto refused = with_line("multiAddress.enabled=false\nmultiAddress.enabled=true");
  EXPECT_FALSE(refused.config);
  EXPECT_THAT(refused.error.message(), HasSubstr("zoo.cfg:4: multiAddress.enabled: "));
}

TEST(ConfigKeys, WarnedKeysStartWithAWarningSayingWhatDiffers) {
  auto r = with_line("localSessionsEnabled=true");
  ASSERT_TRUE(r.config) << r.error.message();
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_THAT(r.warnings[0], HasSubstr("zoo.cfg:3: localSessionsEnabled=true"));
  EXPECT_THAT(r.warnings[0], HasSubstr("no local sessions"));

  auto quiet = with_line("localSessionsEnabled=false");
  ASSERT_TRUE(quiet.config) << quiet.error.message();
  EXPECT_THAT(quiet.warnings, IsEmpty());

  auto limit = with_line("maxCnxns=100");
  ASSERT_TRUE(limit.config) << limit.error.message();
  EXPECT_THAT(limit.warnings, IsEmpty());
  EXPECT_EQ(limit.config->max_cnxns, 100);
  EXPECT_FALSE(with_line("maxCnxns=-1").config);
}

TEST(ConfigKeys, KeysOfNoEffectAreAcceptedSilently) {
  for (const std::string line :
       {"nio.numWorkerThreads=8",
        "serverCnxnFactory=org.apache.zookeeper."
        "server.NettyServerCnxnFactory",
        "clientPortListenBacklog=128", "metricsProvider.exportJvmInfo=false",
        "jvm.pause.monitor=true", "commitLogCount=500"}) {
    auto r = with_line(line);
    EXPECT_TRUE(r.config) << line << ": " << r.error.message();
    EXPECT_THAT(r.warnings, IsEmpty()) << line;
  }
}

// Every honoured entry has an apply function (a static_assert in
// config_keys.cc); here each takes a good value without an error or a warning.
TEST(ConfigKeys, EveryHonouredKeyTakesAGoodValueSilently) {
  const std::map<std::string_view, std::string> values = {
      {"clientPort", "2181"},
      {"dataDir", "/d"},
      {"tickTime", "2000"},
      {"dataLogDir", "/l"},
      {"globalOutstandingLimit", "10"},
      {"connectionMaxTokens", "100"},
      {"connection_throttle_tokens", "100"},
      {"connectionTokenFillTime", "10"},
      {"connection_throttle_fill_time", "10"},
      {"connectionTokenFillCount", "2"},
      {"connection_throttle_fill_count", "2"},
      {"connectionFreezeTime", "-1"},
      {"connection_throttle_freeze_time", "100"},
      {"connectionDropIncrease", "0.02"},
      {"connection_throttle_drop_increase", "0.05"},
      {"connectionDropDecrease", "0.002"},
      {"connection_throttle_drop_decrease", "0.01"},
      {"connectionDecreaseRatio", "0"},
      {"connection_throttle_decrease_ratio", "0.5"},
      {"connection_throttle_weight_enabled", "true"},
      {"connection_throttle_global_session_weight", "3"},
      {"connection_throttle_local_session_weight", "1"},
      {"connection_throttle_renew_session_weight", "2"},
      {"requestThrottleLimit", "500"},
      {"request_throttle_max_requests", "0"},
      {"largeRequestMaxBytes", "4194304"},
      {"largeRequestThreshold", "65536"},
      {"preAllocSize", "1024"},
      {"snapCount", "1000"},
      {"snapshot.compression.method", "snappy"},
      {"maxClientCnxns", "10"},
      {"clientPortAddress", "127.0.0.1"},
      {"minSessionTimeout", "4000"},
      {"maxSessionTimeout", "40000"},
      {"autopurge.snapRetainCount", "3"},
      {"autopurge.purgeInterval", "1"},
      {"extendedTypesEnabled", "true"},
      {"enforceQuota", "true"},
      {"initLimit", "5"},
      {"syncLimit", "2"},
      {"standaloneEnabled", "true"},
      {"4lw.commands.whitelist", "*"},
      {"peerType", "participant"},
      {"DigestAuthenticationProvider.superDigest", "super:x"},
      {"DigestAuthenticationProvider.enabled", "false"},
      {"DigestAuthenticationProvider.digestAlg", "SHA-256"},
      {"skipACL", "yes"},
      {"superUser", "admin"},
      {"enforce.auth.enabled", "false"},
      {"enforce.auth.schemes", "sasl"},
      {"sessionRequireClientSASLAuth", "false"},
      {"secureClientPort", "2281\nssl.keyStore.location=/k.pem"},  // it needs a key store
      {"secureClientPortAddress", "127.0.0.1"},
      {"X509AuthenticationProvider.superUser", "CN=admin"},
      {"ssl.keyStore.location", "/k.pem"},
      {"ssl.keyStore.password", "pw"},
      {"ssl.keyStore.passwordPath", "/dev/null"},
      {"ssl.keyStore.type", "PEM"},
      {"ssl.trustStore.location", "/t.pem"},
      {"ssl.trustStore.password", "pw"},
      {"ssl.trustStore.passwordPath", "/dev/null"},
      {"ssl.trustStore.type", "PEM"},
      {"ssl.protocol", "TLSv1.2"},
      {"ssl.enabledProtocols", "TLSv1.2"},
      {"ssl.ciphersuites", "TLS_AES_128_GCM_SHA256"},
      {"ssl.crl", "true"},
      {"ssl.ocsp", "true"},
      {"ssl.clientAuth", "need"},
      {"client.certReload", "true"},
      {"client.portUnification", "false"},
      {"sslQuorum", "false"},
      {"admin.forceHttps", "false"},
      {"admin.needClientAuth", "false"},
      {"portUnification", "false"},
      {"quorumListenOnAllIPs", "true"},
      {"sslQuorumReloadCertFiles", "true"},
      {"ssl.quorum.keyStore.location", "/k.pem"},
      {"ssl.quorum.keyStore.password", "pw"},
      {"ssl.quorum.keyStore.passwordPath", "/dev/null"},
      {"ssl.quorum.keyStore.type", "PEM"},
      {"ssl.quorum.trustStore.location", "/t.pem"},
      {"ssl.quorum.trustStore.password", "pw"},
      {"ssl.quorum.trustStore.passwordPath", "/dev/null"},
      {"ssl.quorum.trustStore.type", "PEM"},
      {"ssl.quorum.protocol", "TLSv1.2"},
      {"ssl.quorum.enabledProtocols", "TLSv1.2"},
      {"ssl.quorum.ciphersuites", "TLS_AES_128_GCM_SHA256"},
      {"ssl.quorum.crl", "true"},
      {"ssl.quorum.ocsp", "true"},
      {"ssl.quorum.clientAuth", "need"},
      {"ssl.quorum.hostnameVerification", "true"},
      {"ssl.quorum.clientHostnameVerification", "true"},
      {"kerberos.removeHostFromPrincipal", "true"},
      {"kerberos.removeRealmFromPrincipal", "true"},
      {"forceSync", "yes"},
      {"jute.maxbuffer", "1048575"},
      {"znode.container.checkIntervalMs", "1000"},
      {"znode.container.maxPerMinute", "100"},
      {"znode.container.maxNeverUsedIntervalMs", "0"},
      {"admin.enableServer", "false"},
      {"admin.serverAddress", "127.0.0.1"},
      {"admin.serverPort", "8080"},
      {"admin.idleTimeout", "1000"},
      {"maxCnxns", "100"},
      {"admin.rateLimiterIntervalInMS", "300000"},
      {"admin.snapshot.enabled", "true"},
      {"admin.restore.enabled", "false"},
      {"admin.broadcast.enabled", "true"},
      {"admin.commandURL", "/commands"},
      {"metricsProvider.className",
       "org.apache.zookeeper.metrics.prometheus.PrometheusMetricsProvider"},
      {"metricsProvider.httpHost", "127.0.0.1"},
      {"metricsProvider.httpPort", "7000"},
      {"quorum.auth.enableSasl", "false"},
      {"quorum.auth.kerberos.servicePrincipal", "zkquorum/_HOST"},
      {"admin.portUnification", "false"},
      {"quorum.auth.learnerRequireSasl", "false"},
      {"quorum.auth.serverRequireSasl", "false"},
      {"quorum.auth.learner.saslLoginContext", "QuorumLearner"},
      {"quorum.auth.server.saslLoginContext", "QuorumServer"},
      {"zkd.peerTimeoutMs", "300"},
      {"zkd.peerProtocol", "apache"},
      {"zkd.quorumSync", "true"},
      {"zkd.snapshotBytesPerSecond", "33554432"},
      {"audit.enable", "true"},
      {"audit.impl.class", "org.apache.zookeeper.audit.Slf4jAuditLogger"},
      {"zkd.auditLogFile", "/var/log/zkd/zookeeper_audit.log"},
      {"zkd.auditLogMaxFileSize", "10MB"},
      {"zkd.auditLogMaxBackupIndex", "3"},
      {"readonlymode.enabled", "true"},
      {"reconfigEnabled", "true"},
  };
  for (const ConfigKey& entry : config_keys()) {
    if (entry.key_class != KeyClass::kHonoured || entry.key.ends_with(".*")) continue;
    if (entry.key == "dynamicConfigFile") continue;  // needs its file: DynamicConfigFile tests
    auto value = values.find(entry.key);
    ASSERT_NE(value, values.end()) << "no sample value for honoured key " << entry.key;
    auto r = with_line(std::string(entry.key) + "=" + value->second);
    EXPECT_TRUE(r.config) << entry.key << ": " << r.error.message();
    EXPECT_THAT(r.warnings, IsEmpty()) << entry.key;
  }
}

TEST(ConfigKeys, TheAuditLogKeysAreTaken) {
  auto r = with_line(
      "audit.enable=TRUE\naudit.impl.class=com.example.Mine\nzkd.auditLogFile=/a.log\n"
      "zkd.auditLogMaxFileSize=512kb\nzkd.auditLogMaxBackupIndex=0");
  ASSERT_TRUE(r.config) << r.error.message();
  EXPECT_TRUE(r.config->audit_enabled);
  EXPECT_EQ(r.config->audit_impl_class, "com.example.Mine");  // AuditTrail::open refuses it
  EXPECT_EQ(r.config->audit_log_file, "/a.log");
  EXPECT_EQ(r.config->audit_log_max_file_size, 512u * 1024);
  EXPECT_EQ(r.config->audit_log_max_backup_index, 0);
  auto defaults = with_line("audit.enable=false");
  ASSERT_TRUE(defaults.config);
  EXPECT_FALSE(defaults.config->audit_enabled);
  EXPECT_EQ(defaults.config->audit_log_max_file_size, 10u * 1024 * 1024);
  EXPECT_EQ(defaults.config->audit_log_max_backup_index, 10);
  EXPECT_EQ(with_line("zkd.auditLogMaxFileSize=4096").config->audit_log_max_file_size, 4096u);
  for (const std::string bad :
       {"zkd.auditLogMaxFileSize=10 MB", "zkd.auditLogMaxFileSize=MB", "zkd.auditLogMaxFileSize=-1",
        "zkd.auditLogMaxBackupIndex=-1", "zkd.auditLogFile="}) {
    auto refused = with_line(bad);
    EXPECT_FALSE(refused.config) << bad;
    EXPECT_THAT(refused.error.message(), HasSubstr("zoo.cfg:3: ")) << bad;
  }
}

// A bare prefix is the honoured pattern's key, judged by its apply function
// (as Apache's startsWith); other patterns' bare prefixes are unknown keys.
TEST(ConfigKeys, ABarePrefixOfAnHonouredPatternIsItsKey) {
  EXPECT_THAT(with_line("server.=a:1:2").error.message(),
              HasSubstr("zoo.cfg:3: server.: the server id after 'server.' is not a number"));
  EXPECT_THAT(with_line("authProvider.=com.example.Custom").error.message(),
              HasSubstr("zoo.cfg:3: authProvider.: zkd serves the digest"));
  auto ssl = with_line("ssl.=x");
  ASSERT_TRUE(ssl.config) << ssl.error.message();
  EXPECT_THAT(ssl.warnings, Contains(HasSubstr("unknown key 'ssl.' ignored")));
}

TEST(ConfigKeys, UnknownKeyWarnsWithTheClosestKnownKey) {
  auto typo = with_line("tickTim=2000");
  ASSERT_TRUE(typo.config) << typo.error.message();
  ASSERT_EQ(typo.warnings.size(), 1u);
  EXPECT_THAT(typo.warnings[0], HasSubstr("zoo.cfg:3: unknown key 'tickTim' ignored"));
  EXPECT_THAT(typo.warnings[0], HasSubstr("did you mean 'tickTime'?"));

  EXPECT_THAT(with_line("maxclientcnxns=5").warnings,
              Contains(HasSubstr("did you mean 'maxClientCnxns'?")));
  EXPECT_THAT(with_line("autopurge.purgeIntervall=1").warnings,
              Contains(HasSubstr("did you mean 'autopurge.purgeInterval'?")));
  EXPECT_THAT(with_line("zookeeper.snapCount=10").warnings,
              Contains(HasSubstr("drop Apache's 'zookeeper.' prefix: did you mean 'snapCount'?")));

  auto far = with_line("frobnicate=yes");
  ASSERT_EQ(far.warnings.size(), 1u);
  EXPECT_THAT(far.warnings[0], HasSubstr("unknown key 'frobnicate' ignored"));
  EXPECT_THAT(far.warnings[0], ::testing::Not(HasSubstr("did you mean")));
}

// docs/zoo-cfg.md's table: rows "| `key` | class | ... |".
std::map<std::string, std::string> documented_classes() {
  std::ifstream in(std::string(ZK_DOCS_DIR) + "/zoo-cfg.md");
  EXPECT_TRUE(in) << ZK_DOCS_DIR << "/zoo-cfg.md cannot be read";
  std::map<std::string, std::string> classes;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("| `")) continue;
    const size_t key_end = line.find('`', 3);
    const size_t class_start = line.find('|', key_end) + 1;
    const size_t class_end = line.find('|', class_start);
    std::string label = line.substr(class_start, class_end - class_start);
    label = label.substr(label.find_first_not_of(' '));
    label = label.substr(0, label.find_last_not_of(' ') + 1);
    const std::string key = line.substr(3, key_end - 3);
    EXPECT_TRUE(classes.emplace(key, label).second) << key << " is documented twice";
  }
  return classes;
}

TEST(ConfigKeysDoc, TheDocListsEveryKeyWithItsClassAndNoOther) {
  std::map<std::string, std::string> documented = documented_classes();
  for (const ConfigKey& entry : config_keys()) {
    auto row = documented.find(std::string(entry.key));
    if (row == documented.end()) {
      ADD_FAILURE() << "docs/zoo-cfg.md lacks `" << entry.key << "` (" << class_label(entry) << ")";
      continue;
    }
    EXPECT_EQ(row->second, class_label(entry))
        << "class of `" << entry.key << "` in docs/zoo-cfg.md";
    documented.erase(row);
  }
  for (const auto& [key, label] : documented) {
    ADD_FAILURE() << "docs/zoo-cfg.md lists `" << key << "`, which config_keys.cc does not";
  }
}

}  // namespace
}  // namespace zkd::server
