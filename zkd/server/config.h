// SPDX-License-Identifier: Apache-2.0
// The configuration of one zkd server, read from Apache's zoo.cfg (§13 of
// docs/wire-protocol.md) and, in an ensemble, <dataDir>/myid. The keys that matter
// to a standalone server act (storage and purge keys included); ensemble keys
// (server.N, initLimit, syncLimit, peerType) are parsed and checked. Unknown
// keys produce a warning, never an error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkd/net/tls_context.h"
#include "zkd/server/authentication.h"
#include "zkd/server/connection_throttle.h"
#include "zkd/status/status.h"
#include "zkd/storage/snapshot_compression.h"

namespace zkd::server {

// The authProvider.N classes zkd serves.
inline constexpr std::string_view kDigestProviderClass =
    "org.apache.zookeeper.server.auth.DigestAuthenticationProvider";
inline constexpr std::string_view kSaslProviderClass =
    "org.apache.zookeeper.server.auth.SASLAuthenticationProvider";
inline constexpr std::string_view kX509ProviderClass =
    "org.apache.zookeeper.server.auth.X509AuthenticationProvider";

// One `server.N` line: host:quorumPort:electionPort[:participant|:observer]
// [;[clientAddress:]clientPort] (Apache 3.8; a host may be an IPv6 address in
// brackets).
struct QuorumServer {
  int64_t id = 0;  // N: 1..255
  std::string host;
  uint16_t quorum_port = 0;
  uint16_t election_port = 0;
  bool observer = false;       // ":observer"; participants vote
  std::string client_address;  // "" when the line gives none
  uint16_t client_port = 0;    // 0 when the line gives none
};

// Parses the value of a server.N line (Apache's form,
// host:quorumPort:electionPort[:participant|:observer][;[clientAddress:]clientPort])
// (the id excepted); kInvalidArgument saying what is wrong with it.
StatusOr<QuorumServer> parse_server_line(std::string_view value);

struct ServerConfig {
  std::filesystem::path source;  // the file it was read from ("" when parsed from text)

  int32_t tick_time_ms = 3000;
  std::filesystem::path data_dir;      // required
  std::filesystem::path data_log_dir;  // = data_dir when absent
  // dynamicConfigFile: the file the server.N lines were read from (Apache
  // 3.5+ moves them there with reconfigEnabled); empty when zoo.cfg holds
  // them. config_version: the membership's version, the file's
  // "version=<hex>" line or else its name's suffix (zoo.cfg.dynamic.<hex>);
  // 0 for zoo.cfg's own lines.
  std::filesystem::path dynamic_config_file;
  int64_t config_version = 0;
  // clientPort (or this server's server.N line); with secureClientPort
  // alone, as Apache allows, there is no plaintext port and
  // plaintext_clients is false.
  uint16_t client_port = 0;
  std::string client_port_address;  // "" = every address
  bool plaintext_clients = true;
  int32_t max_client_cnxns = 60;  // per client IP; 0 = unlimited
  // maxCnxns: connections all addresses may hold at once on each client
  // port (0: no limit), as Apache's connection factory counts them.
  int32_t max_cnxns = 0;
  int32_t min_session_timeout_ms = 0;  // 2 x tickTime when absent
  int32_t max_session_timeout_ms = 0;  // 20 x tickTime when absent
  std::string four_letter_whitelist = "srvr";
  bool reconfig_enabled = false;
  // extendedTypesEnabled: TTL nodes (createTTL). An ensemble member's id must
  // then be <= 254 (load_config checks it), as in Apache.
  bool extended_types_enabled = false;
  // enforceQuota: creates and setData beyond a quota's hard limit fail with
  // QUOTAEXCEEDED, and any exceeded limit is logged (zkd/tree/quota_check.h).
  // Apache reads it as the JVM property zookeeper.enforceQuota, which a
  // zoo.cfg line sets.
  bool enforce_quota = false;
  // Apache's audit log (docs/audit-log.md, audit_trail.h). audit.enable (or
  // -Dzookeeper.audit.enable=true in SERVER_JVMFLAGS/JVMFLAGS): write it.
  bool audit_enabled = false;
  // audit.impl.class: "" or Apache's Slf4jAuditLogger, whose lines zkd
  // writes; another class stops start-up when the log is enabled.
  std::string audit_impl_class;
  // zkd.auditLogFile: the file ("": dataDir/zookeeper_audit.log), rolled
  // over at zkd.auditLogMaxFileSize bytes keeping zkd.auditLogMaxBackupIndex
  // old ones (Apache's RFAAUDIT appender: 10MB, 10).
  std::string audit_log_file;
  uint64_t audit_log_max_file_size = 10 * 1024 * 1024;
  int32_t audit_log_max_backup_index = 10;
  // The container manager (container_manager.h), which deletes empty
  // containers and expired TTL nodes. Apache reads these only as JVM system
  // properties of the same names (znode.container.*); zkd takes them from
  // zoo.cfg.
  int64_t container_check_interval_ms = 60000;       // checkIntervalMs, > 0
  int64_t container_max_per_minute = 10000;          // maxPerMinute, > 0
  int64_t container_max_never_used_interval_ms = 0;  // maxNeverUsedIntervalMs; 0: never
  // DigestAuthenticationProvider.enabled, .digestAlg, .superDigest (Apache's
  // JVM properties zookeeper.DigestAuthenticationProvider.*, which zoo.cfg
  // sets without the prefix).
  DigestSettings digest;
  // skipACL=yes (Apache's zookeeper.skipACL): no ACL is checked.
  bool skip_acl = false;
  // SASL (opcode 102). authProvider.N naming kSaslProviderClass: SASL must be
  // set up (a JAAS file). superUser (Apache's zookeeper.superUser): the SASL
  // user whose connections are also super. kerberos.remove*FromPrincipal:
  // what a Kerberos principal's sasl id keeps (sasl_id()).
  bool sasl_provider = false;
  // enforce.auth.enabled: a request (other than auth and SASL) from a
  // connection with no id of enforce.auth.schemes gets
  // SESSIONCLOSEDREQUIRESASLAUTH and its connection closes.
  // sessionRequireClientSASLAuth=true sets both (schemes: sasl).
  bool enforce_auth = false;
  std::vector<std::string> enforce_auth_schemes;
  bool session_require_sasl = false;
  std::string sasl_super_user;
  bool kerberos_remove_host = false;
  bool kerberos_remove_realm = false;
  // x509 (authProvider.x509 naming kX509ProviderClass): a TLS client's
  // certificate subject becomes its ("x509", subject) id; the subject equal
  // to X509AuthenticationProvider.superUser is also super.
  std::string x509_super_user;
  // TLS for clients: secureClientPort (0: none) on secureClientPortAddress
  // ("" = every address), and client.portUnification (the plain port takes
  // TLS too); the ssl.* keys, as read (ssl.protocol folded into
  // client_tls_settings.protocols); open_security (security_setup.h) opens
  // the client ports' TLS from them before the server starts.
  uint16_t secure_client_port = 0;
  std::string secure_client_port_address;
  bool port_unification = false;
  std::string ssl_protocol;
  net::TlsSettings client_tls_settings;
  // TLS between servers: sslQuorum (the peer links run over TLS, mutually
  // authenticated), portUnification (the quorum port also takes plaintext
  // peers, for a rolling move to TLS), the ssl.quorum.* keys as read, and
  // ssl.quorum.hostnameVerification / clientHostnameVerification (default
  // true: a peer's certificate must name its host). open_security opens
  // the quorum's TLS from them.
  bool ssl_quorum = false;
  bool quorum_port_unification = false;
  std::string quorum_ssl_protocol;
  net::TlsSettings quorum_tls_settings;
  bool quorum_verify_host = true;
  std::optional<bool> quorum_verify_client_host;  // absent: as quorum_verify_host
  // admin.forceHttps: the admin server speaks HTTPS only, with the
  // ssl.quorum.* stores (as Apache's Jetty admin server); with
  // admin.needClientAuth a client certificate is required (open_security
  // opens the admin server's TLS).
  bool admin_force_https = false;
  // admin.portUnification: the admin port takes HTTPS (with the same stores)
  // and HTTP; admin.forceHttps wins over it.
  bool admin_port_unification = false;
  bool admin_need_client_auth = false;
  // SASL between servers (quorum.auth.*): with quorum_sasl a server
  // authenticates to the peers it dials as the JAAS file's learner section
  // says (a DIGEST-MD5 user, or Kerberos with a keytab) and checks the peers
  // that dial it as its server section says (DIGEST-MD5 users, or Kerberos
  // principals whose host is one of the server.N lines'), as Apache's
  // QuorumLearner/QuorumServer do; the *_required flags refuse peers that
  // do not (peer_transport.h). open_security opens both sides from the
  // JAAS file.
  bool quorum_sasl = false;
  bool quorum_sasl_learner_required = false;
  bool quorum_sasl_server_required = false;
  std::string quorum_sasl_learner_section = "QuorumLearner";
  std::string quorum_sasl_server_section = "QuorumServer";
  // quorum.auth.kerberos.servicePrincipal: the principal a learner asks for,
  // "_HOST" standing for the dialed server's host (Apache's default).
  std::string quorum_kerberos_service_principal = "zkquorum/localhost";

  // Storage. Unlike Apache, zkd purges after every snapshot by default,
  // keeping autopurge.snapRetainCount snapshots (and the logs they need);
  // autopurge.purgeInterval > 0 also purges every that many hours.
  int32_t autopurge_snap_retain_count = 3;     // >= 3, as Apache forces
  int32_t autopurge_purge_interval_hours = 0;  // 0: only after snapshots
  int32_t snap_count = 100000;                 // >= 2, as Apache forces
  // snapshot.compression.method: gz or snappy compress the snapshots this
  // server writes (not those it installs from a leader).
  storage::SnapshotCompression snapshot_compression = storage::SnapshotCompression::kNone;
  // zkd.snapshotBytesPerSecond: the most a snapshot writes a second; 0: no cap.
  int64_t snapshot_bytes_per_second = int64_t{64} << 20;
  int64_t pre_alloc_size_kb = 65536;  // txn log preallocation step, KiB (> 0)
  bool force_sync = true;             // forceSync=no: never fsync the log (UNSAFE)

  // Ensemble. initLimit and syncLimit (in ticks, >= 1) are required when
  // replicated().
  std::optional<int32_t> init_limit;
  std::optional<int32_t> sync_limit;
  // zkd's own key, zkd.peerTimeoutMs: in broadcast, a follower that hears
  // nothing from its leader this long looks for another, and a leader that
  // hears from fewer than a quorum this long steps down, when that is sooner
  // than syncLimit ticks. 0: syncLimit alone, as in Apache.
  int32_t peer_timeout_ms = 500;
  // zkd's own key, zkd.peerProtocol: "apache" speaks Apache ZooKeeper's
  // server-to-server protocol on the election and quorum ports, so that
  // Apache servers and zkd share an ensemble (docs/apache-peer-protocol.md);
  // "zkd" (the default) zkd's own on the quorum port alone. The silence
  // allowed is then syncLimit's alone (Apache's leaders ping each half tick).
  bool apache_peer_protocol = false;
  // zkd's own key, zkd.quorumSync: a sync is answered only once a quorum has
  // confirmed the leader after it arrived (zab::Config::quorum_sync).
  bool quorum_sync = false;
  // Apache's read-only mode (read_only_mode.h): readonlymode.enabled, in
  // zoo.cfg (zkd only) or as the JVM property in SERVER_JVMFLAGS or JVMFLAGS
  // (both; zkd's main() reads it there).
  bool read_only_mode = false;
  std::map<int64_t, std::string> servers;          // server.N -> its value, verbatim
  std::map<int64_t, QuorumServer> quorum_servers;  // server.N, parsed
  // quorumListenOnAllIPs: the peer ports listen on every address
  // (net::kAllAddresses) rather than on this server's server.N host.
  bool quorum_listen_on_all_ips = false;
  bool standalone_enabled = true;
  bool peer_type_observer = false;  // peerType=observer (the server.N line decides)
  // This server's N, from <dataDir>/myid; set by load_config() (read_my_id())
  // when replicated(), else 0.
  int64_t my_id = 0;

  // Limits. globalOutstandingLimit: while this many requests are in process
  // (writes waiting to be committed, requests queued behind them), the
  // connections with requests in process stop reading (back-pressure, no
  // error; WritePath::Limits). jute.maxbuffer: the largest request frame a
  // client may send; a longer one closes its connection (replies are not
  // limited, as Apache's).
  int32_t global_outstanding_limit = 1000;
  int32_t jute_max_buffer = 0xfffff;
  // Overload protection (docs/overload.md): the connection-rate throttle
  // (connectionMaxTokens and its keys); requestThrottleLimit, the requests
  // in process at which busy connections stop being read (0: off); the byte
  // budget of large requests (largeRequestThreshold -1: none is large).
  ConnectionThrottle::Options connection_throttle;
  int32_t request_throttle_limit = 0;
  int32_t large_request_max_bytes = 100 * 1024 * 1024;
  int32_t large_request_threshold = -1;

  // The admin server (Apache's AdminServer): HTTP on
  // admin.serverAddress:admin.serverPort, commands under admin.commandURL.
  bool admin_enabled = true;
  std::string admin_address = "0.0.0.0";
  uint16_t admin_port = 8080;
  std::string admin_command_url = "/commands";
  int32_t admin_idle_timeout_ms = 30000;
  // Apache 3.9's snapshot and restore commands (admin.snapshot.enabled,
  // admin.restore.enabled) and their rate limit
  // (admin.rateLimiterIntervalInMS; backup_commands.h says its units).
  bool admin_snapshot_enabled = true;
  bool admin_restore_enabled = true;
  // zkd's broadcast command, the paper's Figure 7 (admin.broadcast.enabled;
  // broadcast_command.h): off unless asked for.
  bool admin_broadcast_enabled = false;
  int64_t admin_rate_limiter_interval = 300000;
  // metricsProvider.className; zkd serves /metrics on metricsProvider.httpHost:
  // metricsProvider.httpPort when it names Apache's Prometheus provider.
  std::string metrics_provider_class;
  std::string metrics_http_host = "0.0.0.0";
  uint16_t metrics_http_port = 7000;
  bool prometheus_enabled() const;

  // The whole file as read (Apache's icfg), for later use.
  std::string text;

  // Apache's rule (QuorumPeerConfig.isDistributed): server.N lines exist and
  // either more than one of them is a participant or standaloneEnabled=false.
  // (parse_config refuses the other combinations with observers.) A single
  // server line with standaloneEnabled left true runs standalone.
  bool replicated() const;
  // In an ensemble, the longest a leader and a follower in broadcast go
  // without hearing from each other before giving up: the shorter of
  // syncLimit x tickTime and peer_timeout_ms (when set).
  int64_t peer_silence_ms() const;
};

struct ConfigResult {
  std::optional<ServerConfig> config;  // set on success
  Status error;                        // kConfig on failure: names the file, line and key
  std::vector<std::string> warnings;   // warned and unknown keys and the like
};

// Parses zoo.cfg text; `file_name` is only used in messages. Every key is
// classified by the registry in config_keys.h (docs/zoo-cfg.md): a refused
// key is an error, a warned or unknown key a warning (an unknown one with a
// hint at the closest known key), a key of no effect is accepted silently.
// Reads no other file: my_id stays 0, and when clientPort is absent but the
// server lines give client ports, client_port stays 0 (load_config takes it
// from this server's line).
ConfigResult parse_config(std::string_view text, const std::string& file_name);
// Reads and parses a file; when replicated(), also reads myid (read_my_id())
// and, if clientPort was absent, takes the client address and port of this
// server's line. A standalone server with server.N lines does as Apache's:
// when <dataDir>/myid exists it must hold a number, and the line it names
// gives the client port if clientPort is absent (Apache's Docker image
// relies on it); with no port from either, zkd refuses to start where Apache
// would run without a client port.
ConfigResult load_config(const std::filesystem::path& file);

// The server id in a myid file's text, read as Apache reads it: the first
// line (up to \r or \n) is exactly one decimal int64, optionally signed
// with '+'; no spaces. nullopt otherwise.
std::optional<int64_t> parse_my_id(std::string_view text);

// The number in a small text file such as myid or currentEpoch (Apache
// writes and reads them as decimal text): surrounding whitespace and line
// ends ignored; nullopt when the rest is not exactly one decimal int64.
std::optional<int64_t> parse_number_file(std::string_view text);

// Sets config.my_id from <dataDir>/myid (parse_my_id); else a kConfig error
// naming the file: missing or unreadable, not a number, or no server.N line
// for it.
Status read_my_id(ServerConfig& config);

// Creates dataDir (and dataLogDir) when missing: kIo when one cannot be
// created, kConfig when the path is not a directory.
Status prepare_directories(const ServerConfig& config);

}  // namespace zkd::server
