// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/config_keys.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "zkd/server/authentication.h"
#include "zkd/server/config.h"
#include "zkd/server/config_parser.h"
#include "zkd/server/properties.h"

namespace zkd::server {
namespace {

using enum KeyClass;
using enum KeyWhen;

// Reasons shared by many keys.
constexpr std::string_view kQuorumTlsStore =
    "honoured for the TLS between servers (sslQuorum; docs/security.md)";
constexpr std::string_view kTlsStore = "honoured for the client port's TLS (docs/security.md)";
constexpr std::string_view kJvm = "JVM tuning of Apache's implementation; zkd has no equivalent";
constexpr std::string_view kNetty =
    "tunes Apache's Netty connection factory; zkd has its own network layer";
constexpr std::string_view kQuorumInternals =
    "tunes Apache's quorum internals; zkd's replication (docs/replication.md) has its own";

// Apply functions (ApplyKey) shared by many entries, or too long for a row.

// A text key: the value as written.
template <auto Field>
bool text(ConfigParser&, const Property& line, ServerConfig& c) {
  c.*Field = line.value;
  return true;
}

// A boolean key, read as Java's Boolean.parseBoolean (never fails).
template <auto Field>
bool flag(ConfigParser& parser, const Property& line, ServerConfig& c) {
  return parser.boolean(line, c.*Field);
}

// A TCP port key (1..65535).
template <auto Field>
bool port(ConfigParser& parser, const Property& line, ServerConfig& c) {
  return parser.tcp_port(line, c.*Field);
}

// An integer key of the connection throttle, at least Min.
template <auto Field, int Min>
bool throttle_int(ConfigParser& parser, const Property& line, ServerConfig& c) {
  return parser.number_at_least(line, c.connection_throttle.*Field, Min,
                                "must be " + std::to_string(Min) + " or more");
}

// A share of the connection throttle (a probability or a ratio), 0..1.
template <auto Field>
bool throttle_share(ConfigParser& parser, const Property& line, ServerConfig& c) {
  double share = 0;
  if (!parser.number(line, share)) return false;
  if (share < 0 || share > 1) return parser.fail(line, "must be between 0 and 1");
  c.connection_throttle.*Field = share;
  return true;
}

// A session weight of the connection throttle: Apache takes any integer
// and corrects nonsense (ConnectionThrottle's constructor does the same).
template <auto Field>
bool throttle_weight(ConfigParser& parser, const Property& line, ServerConfig& c) {
  return parser.number(line, c.connection_throttle.*Field);
}

// The settings of one TLS group, client (ssl.*) or quorum (ssl.quorum.*),
// with its ssl.protocol value (check_tls in config.cc uses that when
// enabledProtocols is absent).
struct TlsGroup {
  net::TlsSettings& tls;
  std::string& protocol;
};
TlsGroup client_tls(ServerConfig& c) { return {c.client_tls_settings, c.ssl_protocol}; }
TlsGroup quorum_tls(ServerConfig& c) { return {c.quorum_tls_settings, c.quorum_ssl_protocol}; }

using ApplyTlsKey = bool (*)(ConfigParser&, const Property&, TlsGroup);

// The ApplyKey of a TLS key of the group Group picks: one function serves
// ssl.X and ssl.quorum.X alike.
template <TlsGroup (*Group)(ServerConfig&), ApplyTlsKey Apply>
bool tls_key(ConfigParser& parser, const Property& line, ServerConfig& c) {
  return Apply(parser, line, Group(c));
}

bool key_store_location(ConfigParser&, const Property& line, TlsGroup g) {
  g.tls.key_store.location = line.value;
  return true;
}
bool key_store_password(ConfigParser&, const Property& line, TlsGroup g) {
  g.tls.key_store.password = line.value;
  return true;
}
bool key_store_type(ConfigParser&, const Property& line, TlsGroup g) {
  g.tls.key_store.type = line.value;
  return true;
}
bool trust_store_location(ConfigParser&, const Property& line, TlsGroup g) {
  g.tls.trust_store.location = line.value;
  return true;
}
bool trust_store_password(ConfigParser&, const Property& line, TlsGroup g) {
  g.tls.trust_store.password = line.value;
  return true;
}
bool trust_store_type(ConfigParser&, const Property& line, TlsGroup g) {
  g.tls.trust_store.type = line.value;
  return true;
}

// *.passwordPath: the file's content (read now), without trailing line ends.
bool read_password(ConfigParser& parser, const Property& line, std::string& password) {
  std::error_code ec;
  if (std::filesystem::is_directory(line.value, ec)) {
    return parser.fail(line, "cannot read " + line.value + ": a directory");
  }
  std::ifstream in(line.value, std::ios::binary);
  if (!in) return parser.fail(line, "cannot read " + line.value);
  std::string secret((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  password = secret;
  return true;
}
bool key_store_password_path(ConfigParser& parser, const Property& line, TlsGroup g) {
  return read_password(parser, line, g.tls.key_store.password);
}
bool trust_store_password_path(ConfigParser& parser, const Property& line, TlsGroup g) {
  return read_password(parser, line, g.tls.trust_store.password);
}

bool client_auth(ConfigParser& parser, const Property& line, TlsGroup g) {
  const std::string mode = lower_case(line.value);
  if (mode == "need") {
    g.tls.client_auth = net::TlsSettings::ClientAuth::kNeed;
  } else if (mode == "want") {
    g.tls.client_auth = net::TlsSettings::ClientAuth::kWant;
  } else if (mode == "none") {
    g.tls.client_auth = net::TlsSettings::ClientAuth::kNone;
  } else {
    return parser.fail(line, "'" + line.value + "' is not need, want or none");
  }
  return true;
}
bool protocol(ConfigParser&, const Property& line, TlsGroup g) {
  g.protocol = line.value;  // used when enabledProtocols is absent (check_tls)
  return true;
}
bool enabled_protocols(ConfigParser&, const Property& line, TlsGroup g) {
  g.tls.protocols = comma_list(line.value);
  return true;
}
bool cipher_suites(ConfigParser&, const Property& line, TlsGroup g) {
  g.tls.cipher_suites = comma_list(line.value);
  return true;
}
bool crl(ConfigParser&, const Property& line, TlsGroup g) {
  g.tls.revocation.crl = java_true(line.value);
  return true;
}
bool ocsp(ConfigParser&, const Property& line, TlsGroup g) {
  g.tls.revocation.ocsp = java_true(line.value);
  return true;
}

// server.N: N in 1..255, given once; the line as parse_server_line reads it.
bool server_line(ConfigParser& parser, const Property& p, ServerConfig& c) {
  int64_t id = 0;
  std::string_view digits = std::string_view(p.key).substr(7);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size()) {
    return parser.fail(p, "the server id after 'server.' is not a number");
  }
  if (id < 1 || id > 255) {
    return parser.fail(p, "server id " + std::to_string(id) +
                              " is out of range: zkd needs 1..255, because a session id "
                              "carries its server's id in its top byte");
  }
  if (auto [it, added] = parser.seen().server_lines.emplace(id, p.line); !added) {
    return parser.fail(p, "server id " + std::to_string(id) + " is given twice (also on line " +
                              std::to_string(it->second) + ")");
  }
  StatusOr<QuorumServer> server = parse_server_line(p.value);
  if (!server.ok()) return parser.fail(p, server.status().message());
  server->id = id;
  c.servers[id] = p.value;
  c.quorum_servers[id] = *std::move(server);
  return true;
}

// authProvider.N: the providers zkd serves; SASL's switches SASL on.
bool auth_provider(ConfigParser& parser, const Property& p, ServerConfig& c) {
  if (p.value == kSaslProviderClass) {
    c.sasl_provider = true;
  } else if (p.value != kDigestProviderClass && p.value != kX509ProviderClass) {
    return parser.fail(p, "zkd serves the digest, ip, sasl and x509 schemes only (" +
                              std::string(kDigestProviderClass) + ", " +
                              std::string(kSaslProviderClass) + ", " +
                              std::string(kX509ProviderClass) + "); remove the key");
  }
  return true;
}

bool snapshot_compression(ConfigParser& parser, const Property& p, ServerConfig& c) {
  // Apache's names; "checked" (its default) and empty mean none.
  const std::string method = lower_case(p.value);
  if (method == "gz") {
    c.snapshot_compression = storage::SnapshotCompression::kGzip;
  } else if (method == "snappy") {
    c.snapshot_compression = storage::SnapshotCompression::kSnappy;
  } else if (method == "checked" || method.empty()) {
    c.snapshot_compression = storage::SnapshotCompression::kNone;
  } else {
    return parser.fail(p, "must be gz, snappy or checked (none)");
  }
  return true;
}

// zkd.auditLogMaxFileSize: bytes, or a number with logback's KB, MB or GB
// (any case; 1024-based, as logback's FileSize).
bool audit_log_max_file_size(ConfigParser& parser, const Property& p, ServerConfig& c) {
  std::string_view text = p.value;
  uint64_t unit = 1;
  const std::string lower = lower_case(text);
  for (const auto& [suffix, size] : {std::pair<std::string_view, uint64_t>{"kb", 1024},
                                     {"mb", 1024 * 1024},
                                     {"gb", 1024 * 1024 * 1024}}) {
    if (lower.ends_with(suffix)) {
      unit = size;
      text.remove_suffix(suffix.size());
      break;
    }
  }
  uint64_t count = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() ||
      count > UINT64_MAX / unit) {
    return parser.fail(p, "must be a number of bytes, or a number with KB, MB or GB (10MB)");
  }
  c.audit_log_max_file_size = count * unit;
  return true;
}

constexpr auto kKeys = std::to_array<ConfigKey>({
    // Minimum configuration.
    {"clientPort", kHonoured, kAlways, "",
     "the client port (or this server's server.N line's); when neither gives one, only "
     "secureClientPort serves clients, as in Apache",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       if (!parser.tcp_port(line, c.client_port)) return false;
       parser.seen().has_client_port = true;
       return true;
     }},
    {"secureClientPort", kHonoured, kAlways, "",
     "the TLS client port (needs ssl.keyStore.location; docs/security.md)",
     port<&ServerConfig::secure_client_port>},
    {"secureClientPortAddress", kHonoured, kAlways, "",
     "the address of the TLS client port (default every address)",
     text<&ServerConfig::secure_client_port_address>},
    {"observerMasterPort", kWarned, kAlways, "",
     "zkd opens no observer master port: observers sync from the leader"},
    {"dataDir", kHonoured, kAlways, "", "snapshots, epoch files and myid; created when missing",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       if (line.value.empty()) return parser.fail(line, "is empty");
       c.data_dir = line.value;
       parser.seen().has_data_dir = true;
       return true;
     }},
    {"tickTime", kHonoured, kAlways, "", "the basic time unit in ms (default 3000)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.tick_time_ms, 1,
                                     "must be a positive number of milliseconds");
     }},
    // Advanced configuration.
    {"dataLogDir", kHonoured, kAlways, "", "the txn log directory (default dataDir)",
     text<&ServerConfig::data_log_dir>},
    {"globalOutstandingLimit", kHonoured, kAlways, "",
     "requests in process at which connections with requests in process stop being read "
     "(docs/overload.md)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.global_outstanding_limit, 1,
                                     "must be a positive number");
     }},
    {"preAllocSize", kHonoured, kAlways, "", "txn log preallocation step in KiB",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.pre_alloc_size_kb, 1,
                                     "must be a positive number of KiB");
     }},
    {"snapCount", kHonoured, kAlways, "", "txns between snapshots (randomised as in Apache)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       if (!parser.number(line, c.snap_count)) return false;
       if (c.snap_count < 2) c.snap_count = 2;  // Apache's floor
       return true;
     }},
    {"commitLogCount", kNoEffect, kAlways, "",
     "sizes Apache's in-memory log of committed proposals; zkd syncs learners from its txn log"},
    {"snapSizeLimitInKb", kWarned, kIsNot, "4194304",
     "zkd takes snapshots by snapCount only, not by the size of the txns logged since the last "
     "one"},
    {"txnLogSizeLimitInKb", kWarned, kIsNot, "-1",
     "zkd starts a new txn log segment by preAllocSize, not by this limit"},
    {"maxCnxns", kHonoured, kAlways, "",
     "connections all clients may hold at once on each client port (0: no limit); one more is "
     "closed at once",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.max_cnxns, 0, "must not be negative");
     }},
    {"maxClientCnxns", kHonoured, kAlways, "", "connections per client IP (0: no limit)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.max_client_cnxns, 0, "must not be negative");
     }},
    {"clientPortAddress", kHonoured, kAlways, "", "the address the client port listens on",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       c.client_port_address = line.value;
       parser.seen().client_port_address = line;
       return true;
     }},
    {"minSessionTimeout", kHonoured, kAlways, "",
     "the lowest session timeout granted, ms (default 2 x tickTime)",
     [](ConfigParser& parser, const Property& line, ServerConfig&) {
       int32_t v = 0;
       if (!parser.number(line, v)) return false;
       parser.seen().min_timeout = v;
       parser.seen().min_line = line.line;
       return true;
     }},
    {"maxSessionTimeout", kHonoured, kAlways, "",
     "the highest session timeout granted, ms (default 20 x tickTime)",
     [](ConfigParser& parser, const Property& line, ServerConfig&) {
       int32_t v = 0;
       if (!parser.number(line, v)) return false;
       parser.seen().max_timeout = v;
       return true;
     }},
    {"fsync.warningthresholdms", kNoEffect, kAlways, "",
     "zkd reports fsync times in mntr and /metrics (fsynctime) rather than logging slow ones"},
    {"maxResponseCacheSize", kNoEffect, kAlways, "",
     "sizes Apache's cache of serialised getData replies; zkd has none"},
    {"maxGetChildrenResponseCacheSize", kNoEffect, kAlways, "",
     "sizes Apache's cache of serialised getChildren replies; zkd has none"},
    {"autopurge.snapRetainCount", kHonoured, kAlways, "",
     "snapshots kept (at least 3); zkd purges after every snapshot too",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       if (!parser.number(line, c.autopurge_snap_retain_count)) return false;
       if (c.autopurge_snap_retain_count < 3) c.autopurge_snap_retain_count = 3;  // Apache's floor
       return true;
     }},
    {"autopurge.purgeInterval", kHonoured, kAlways, "", "hours between timed purges (0: none)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number(line, c.autopurge_purge_interval_hours);
     }},
    {"syncEnabled", kWarned, kFalse, "", "zkd observers always write their txn log"},
    {"extendedTypesEnabled", kHonoured, kAlways, "",
     "TTL nodes; server ids must then be 254 or less", flag<&ServerConfig::extended_types_enabled>},
    {"emulate353TTLNodes", kWarned, kTrue, "",
     "zkd encodes TTL nodes as Apache 3.5.4 and later do, not as 3.5.3"},
    {"watchManagerName", kNoEffect, kAlways, "",
     "picks Apache's Java watch manager class; zkd has one watch manager"},
    {"watcherCleanThreadsNum", kNoEffect, kAlways, "",
     "tunes Apache's dead-watcher cleaner; zkd removes a connection's watches when it closes"},
    {"watcherCleanThreshold", kNoEffect, kAlways, "",
     "tunes Apache's dead-watcher cleaner; zkd removes a connection's watches when it closes"},
    {"watcherCleanIntervalInSeconds", kNoEffect, kAlways, "",
     "tunes Apache's dead-watcher cleaner; zkd removes a connection's watches when it closes"},
    {"maxInProcessingDeadWatchers", kNoEffect, kAlways, "",
     "tunes Apache's dead-watcher cleaner; zkd removes a connection's watches when it closes"},
    {"bitHashCacheSize", kNoEffect, kAlways, "",
     "sizes a cache of Apache's optimised watch manager; zkd has none"},
    {"fastleader.minNotificationInterval", kNoEffect, kAlways, "", kQuorumInternals},
    {"fastleader.maxNotificationInterval", kNoEffect, kAlways, "", kQuorumInternals},
    {"connectionMaxTokens", kHonoured, kAlways, "",
     "the connection-rate throttle's bucket size; 0 (the default) turns it off (docs/overload.md)",
     throttle_int<&ConnectionThrottle::Options::max_tokens, 0>},
    {"connection_throttle_tokens", kHonoured, kAlways, "",
     "the connection-rate throttle's bucket size; 0 (the default) turns it off (docs/overload.md)",
     throttle_int<&ConnectionThrottle::Options::max_tokens, 0>},
    {"connectionTokenFillTime", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_int<&ConnectionThrottle::Options::fill_time_ms, 1>},
    {"connection_throttle_fill_time", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_int<&ConnectionThrottle::Options::fill_time_ms, 1>},
    {"connectionTokenFillCount", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_int<&ConnectionThrottle::Options::fill_count, 0>},
    {"connection_throttle_fill_count", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_int<&ConnectionThrottle::Options::fill_count, 0>},
    {"connectionFreezeTime", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_int<&ConnectionThrottle::Options::freeze_time_ms, -1>},
    {"connection_throttle_freeze_time", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_int<&ConnectionThrottle::Options::freeze_time_ms, -1>},
    {"connectionDropIncrease", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_share<&ConnectionThrottle::Options::drop_increase>},
    {"connection_throttle_drop_increase", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_share<&ConnectionThrottle::Options::drop_increase>},
    {"connectionDropDecrease", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_share<&ConnectionThrottle::Options::drop_decrease>},
    {"connection_throttle_drop_decrease", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_share<&ConnectionThrottle::Options::drop_decrease>},
    {"connectionDecreaseRatio", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_share<&ConnectionThrottle::Options::decrease_ratio>},
    {"connection_throttle_decrease_ratio", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_share<&ConnectionThrottle::Options::decrease_ratio>},
    {"connection_throttle_weight_enabled", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.boolean(line, c.connection_throttle.weight_enabled);
     }},
    {"connection_throttle_global_session_weight", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_weight<&ConnectionThrottle::Options::global_weight>},
    {"connection_throttle_local_session_weight", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_weight<&ConnectionThrottle::Options::local_weight>},
    {"connection_throttle_renew_session_weight", kHonoured, kAlways, "",
     "tunes the connection-rate throttle (docs/overload.md)",
     throttle_weight<&ConnectionThrottle::Options::renew_weight>},
    {"clientPortListenBacklog", kNoEffect, kAlways, "",
     "zkd listens with the system's largest backlog (SOMAXCONN)"},
    {"serverCnxnFactory", kNoEffect, kAlways, "",
     "picks Apache's NIO or Netty connection factory; zkd has its own network layer (TLS keys are "
     "refused on their own)"},
    {"flushDelay", kNoEffect, kAlways, "",
     "tunes Apache's batching of txn log flushes; zkd's log thread batches what is waiting"},
    {"maxWriteQueuePollTime", kNoEffect, kAlways, "",
     "tunes Apache's batching of txn log flushes; zkd's log thread batches what is waiting"},
    {"maxBatchSize", kNoEffect, kAlways, "",
     "tunes Apache's batching of txn log flushes; zkd's log thread batches what is waiting"},
    {"enforceQuota", kHonoured, kAlways, "", "writes beyond a hard quota fail with QUOTAEXCEEDED",
     flag<&ServerConfig::enforce_quota>},
    {"requestThrottleLimit", kHonoured, kAlways, "",
     "requests in process at which connections with requests in process stop being read; 0 (the "
     "default) turns it off (docs/overload.md)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.request_throttle_limit, 0, "must be 0 or more");
     }},
    {"request_throttle_max_requests", kHonoured, kAlways, "",
     "requests in process at which connections with requests in process stop being read; 0 (the "
     "default) turns it off (docs/overload.md)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.request_throttle_limit, 0, "must be 0 or more");
     }},
    {"requestThrottleStallTime", kNoEffect, kAlways, "",
     "zkd re-checks the request throttle at every answer, so a stalled connection waits for "
     "no period"},
    {"request_throttle_stall_time", kNoEffect, kAlways, "",
     "zkd re-checks the request throttle at every answer, so a stalled connection waits for "
     "no period"},
    {"requestThrottleDropStale", kWarned, kFalse, "",
     "zkd never processes a request of a connection that closed (what true does)"},
    {"request_throttle_drop_stale", kWarned, kFalse, "",
     "zkd never processes a request of a connection that closed (what true does)"},
    {"requestStaleLatencyCheck", kWarned, kTrue, "",
     "zkd does not drop a request that waited longer than its session timeout"},
    {"request_stale_latency_check", kWarned, kTrue, "",
     "zkd does not drop a request that waited longer than its session timeout"},
    {"requestStaleConnectionCheck", kWarned, kFalse, "",
     "zkd never processes a request of a connection that closed (what true does)"},
    {"request_stale_connection_check", kWarned, kFalse, "",
     "zkd never processes a request of a connection that closed (what true does)"},
    {"request_throttler.shutdownTimeout", kNoEffect, kAlways, "",
     "zkd's throttle holds no queue of its own to drain at shutdown (docs/overload.md)"},
    {"advancedFlowControlEnabled", kNoEffect, kAlways, "", kNetty},
    {"enableEagerACLCheck", kWarned, kTrue, "",
     "zkd checks a write's ACL when it applies the write, not before proposing it"},
    {"maxConcurrentSnapSyncs", kNoEffect, kAlways, "", kQuorumInternals},
    {"maxConcurrentDiffSyncs", kNoEffect, kAlways, "", kQuorumInternals},
    {"digest.enabled", kNoEffect, kAlways, "",
     "switches Apache's tree digest in txns and snapshots; zkd's files are its own "
     "(docs/storage-format.md)"},
    {"snapshot.compression.method", kHonoured, kAlways, "",
     "gz or snappy compress the snapshots this server writes (a leader's snapshot it installs "
     "stays as sent)",
     snapshot_compression},
    {"snapshot.trust.empty", kNoEffect, kAlways, "",
     "zkd's recovery does not read this key; docs/durability.md says what it trusts"},
    {"audit.enable", kHonoured, kAlways, "",
     "true: zkd writes Apache's audit log, line for line (zkd.auditLogFile; docs/audit-log.md)",
     flag<&ServerConfig::audit_enabled>},
    {"audit.impl.class", kHonoured, kAlways, "",
     "Apache's org.apache.zookeeper.audit.Slf4jAuditLogger (the default), whose lines zkd "
     "writes; any other class stops start-up when the audit log is enabled",
     text<&ServerConfig::audit_impl_class>},
    {"largeRequestMaxBytes", kHonoured, kAlways, "",
     "the bytes all large requests in process may hold; one more closes its connection "
     "(docs/overload.md)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.large_request_max_bytes, 1,
                                     "must be a positive number");
     }},
    {"largeRequestThreshold", kHonoured, kAlways, "",
     "the size above which a request is large; -1 (the default) counts none (docs/overload.md)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.large_request_threshold, -1, "must be -1 or more");
     }},
    {"outstandingHandshake.limit", kNoEffect, kAlways, "", kNetty},
    {"netty.server.earlyDropSecureConnectionHandshakes", kNoEffect, kAlways, "", kNetty},
    {"throttledOpWaitTime", kWarned, kIsNot, "0",
     "zkd does not answer requests that waited this long with THROTTLEDOP (docs/overload.md)"},
    {"learner.closeSocketAsync", kNoEffect, kAlways, "", kQuorumInternals},
    {"leader.closeSocketAsync", kNoEffect, kAlways, "", kQuorumInternals},
    {"learner.asyncSending", kNoEffect, kAlways, "", kQuorumInternals},
    {"forward_learner_requests_to_commit_processor_disabled", kNoEffect, kAlways, "",
     kQuorumInternals},
    {"serializeLastProcessedZxid.enabled", kNoEffect, kAlways, "",
     "zkd's snapshots record their zxid in their own format (docs/storage-format.md)"},
    // Cluster options.
    {"electionAlg", kRefused, kIsNot, "3",
     "zkd has only fast leader election, electionAlg=3 (Apache 3.8 refuses 1 and 2); remove the "
     "key"},
    {"maxTimeToWaitForEpoch", kNoEffect, kAlways, "", kQuorumInternals},
    {"initLimit", kHonoured, kAlways, "", "ticks a learner has to connect and sync",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       int32_t v = 0;
       if (!parser.number(line, v)) return false;
       c.init_limit = v;
       parser.seen().init_limit = line;
       return true;
     }},
    {"connectToLearnerMasterLimit", kNoEffect, kAlways, "",
     "zkd observers connect to the leader (no observer master), within initLimit"},
    {"leaderServes", kWarned, kIs, "no", "zkd's leader always accepts client connections"},
    {"server.*", kHonoured, kAlways, "",
     "one line per ensemble member (server.N); several addresses for one server are refused",
     server_line},
    {"syncLimit", kHonoured, kAlways, "",
     "ticks a leader and a follower may go without hearing from each other (zkd.peerTimeoutMs "
     "makes it shorter)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       int32_t v = 0;
       if (!parser.number(line, v)) return false;
       c.sync_limit = v;
       parser.seen().sync_limit = line;
       return true;
     }},
    {"group.*", kRefused, kAlways, "",
     "zkd has no hierarchical quorums: every participant has one vote in one majority. Remove the "
     "group.N and weight.N lines"},
    {"weight.*", kRefused, kAlways, "",
     "zkd has no hierarchical quorums: every participant has one vote in one majority. Remove the "
     "group.N and weight.N lines"},
    {"cnxTimeout", kNoEffect, kAlways, "", kQuorumInternals},
    {"quorumCnxnTimeoutMs", kNoEffect, kAlways, "", kQuorumInternals},
    {"standaloneEnabled", kHonoured, kAlways, "",
     "false: one participant still runs as an ensemble", flag<&ServerConfig::standalone_enabled>},
    {"reconfigEnabled", kHonoured, kAlways, "",
     "true: a superuser (or any client with skipACL) may change the membership with the reconfig "
     "request; false: reconfig is answered RECONFIGDISABLED",
     flag<&ServerConfig::reconfig_enabled>},
    {"4lw.commands.whitelist", kHonoured, kAlways, "", "the four-letter words answered",
     text<&ServerConfig::four_letter_whitelist>},
    {"tcpKeepAlive", kNoEffect, kAlways, "", kQuorumInternals},
    {"clientTcpKeepAlive", kNoEffect, kAlways, "",
     "zkd does not set TCP keep-alive on client connections; sessions time out on their own"},
    {"electionPortBindRetry", kNoEffect, kAlways, "",
     "zkd opens no election port: votes travel over the quorum port"},
    {"observer.reconnectDelayMs", kNoEffect, kAlways, "", kQuorumInternals},
    {"observer.election.DelayMs", kNoEffect, kAlways, "", kQuorumInternals},
    {"localSessionsEnabled", kWarned, kTrue, "",
     "zkd has no local sessions: every session is global (created through the leader), which "
     "clients cannot tell apart except by speed"},
    {"localSessionsUpgradingEnabled", kWarned, kTrue, "",
     "zkd has no local sessions: every session is global already"},
    {"peerType", kHonoured, kAlways, "",
     "participant or observer; the server's own server.N line decides",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       const std::string type = lower_case(line.value);
       if (type != "participant" && type != "observer") {
         return parser.fail(line,
                            "'" + line.value + "' is not a peer type (participant or observer)");
       }
       c.peer_type_observer = type == "observer";
       return true;
     }},
    {"dynamicConfigFile", kHonoured, kAlways, "",
     "the server.N lines (and version) are read from that file, as Apache 3.5+ writes it; with "
     "reconfigEnabled each committed reconfiguration is written to zoo.cfg.dynamic.<version> and "
     "zoo.cfg points at it, as Apache does",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       if (line.value.empty()) return parser.fail(line, "is empty");
       c.dynamic_config_file = line.value;
       parser.seen().dynamic_config_file = line;
       return true;
     }},
    {"oraclePath", kRefused, kAlways, "",
     "zkd has no quorum oracle for two-server ensembles; remove the key (and run three servers)"},
    {"portUnification", kHonoured, kAlways, "",
     "the quorum port takes TLS and plaintext peers, for a rolling move to sslQuorum (needs "
     "ssl.quorum.keyStore.location)",
     flag<&ServerConfig::quorum_port_unification>},
    {"quorum.cnxn.threads.size", kNoEffect, kAlways, "", kQuorumInternals},
    {"multiAddress.enabled", kRefused, kTrue, "",
     "zkd supports one address per server; remove multiAddress.enabled and the extra addresses"},
    {"multiAddress.reachabilityCheckTimeoutMs", kNoEffect, kAlways, "",
     "only used with multiAddress.enabled=true, which zkd refuses"},
    {"multiAddress.reachabilityCheckEnabled", kNoEffect, kAlways, "",
     "only used with multiAddress.enabled=true, which zkd refuses"},
    {"quorumListenOnAllIPs", kHonoured, kAlways, "",
     "true: the quorum and election ports listen on every address (0.0.0.0), not on the server.N "
     "line's host, which need not resolve then",
     flag<&ServerConfig::quorum_listen_on_all_ips>},
    // Encryption, authentication, authorization.
    {"DigestAuthenticationProvider.enabled", kHonoured, kAlways, "",
     "false: the digest scheme is not served (addauth digest gets AUTHFAILED; digest ACL entries "
     "match no one)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.boolean(line, c.digest.enabled);
     }},
    {"DigestAuthenticationProvider.superDigest", kHonoured, kAlways, "",
     "the digest that makes a connection super",
     [](ConfigParser&, const Property& line, ServerConfig& c) {
       c.digest.super_digest = line.value;
       return true;
     }},
    {"DigestAuthenticationProvider.digestAlg", kHonoured, kAlways, "",
     "the digest scheme's hash (default SHA1; SHA-256, SHA3-256 and the other names Java and "
     "OpenSSL share)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       if (!valid_digest_algorithm(line.value)) {
         return parser.fail(
             line, "OpenSSL has no digest " + line.value + " (SHA1, SHA-256, SHA3-256, ...)");
       }
       c.digest.algorithm = line.value;
       return true;
     }},
    {"IPAuthenticationProvider.usexforwardedfor", kWarned, kTrue, "",
     "zkd's admin server authenticates no request, so no ip id is taken from X-Forwarded-For"},
    {"X509AuthenticationProvider.superUser", kHonoured, kAlways, "",
     "the certificate subject whose TLS connections are super",
     text<&ServerConfig::x509_super_user>},
    {"superUser", kHonoured, kAlways, "",
     "a SASL user whose connections are super (Apache's JVM property zookeeper.superUser)",
     text<&ServerConfig::sasl_super_user>},
    {"ssl.authProvider", kRefused, kIsNot, "x509",
     "zkd authenticates TLS clients by the x509 scheme only; remove the key"},
    {"ensembleAuthName", kNoEffect, kAlways, "",
     "only read by Apache's ensemble authentication provider, which needs an authProvider.N line "
     "(refused)"},
    {"sessionRequireClientSASLAuth", kHonoured, kAlways, "",
     "true: as enforce.auth.enabled=true with enforce.auth.schemes=sasl (Apache 3.6's key)",
     flag<&ServerConfig::session_require_sasl>},
    {"enforce.auth.enabled", kHonoured, kAlways, "",
     "true: a request from a connection without an id of enforce.auth.schemes gets "
     "SESSIONCLOSEDREQUIRESASLAUTH and the connection closes",
     flag<&ServerConfig::enforce_auth>},
    {"enforce.auth.schemes", kHonoured, kAlways, "",
     "the schemes enforce.auth.enabled accepts: digest, ip, sasl, x509, comma-separated",
     [](ConfigParser&, const Property& line, ServerConfig& c) {
       c.enforce_auth_schemes = comma_list(line.value);
       return true;
     }},
    {"requireClientAuthScheme", kWarned, kAlways, "",
     "Apache ZooKeeper does not read this key and enforces nothing with it; zkd neither. To "
     "require SASL, set enforce.auth.enabled=true and enforce.auth.schemes=sasl"},
    {"authProvider.*", kHonoured, kAlways, "",
     "DigestAuthenticationProvider, and SASLAuthenticationProvider (SASL needs a JAAS file: zkd "
     "--jaas, or -Djava.security.auth.login.config in SERVER_JVMFLAGS); other providers are "
     "refused",
     auth_provider},
    {"kerberos.removeHostFromPrincipal", kHonoured, kAlways, "",
     "a Kerberos SASL id drops the principal's /host part",
     flag<&ServerConfig::kerberos_remove_host>},
    {"kerberos.removeRealmFromPrincipal", kHonoured, kAlways, "",
     "a Kerberos SASL id drops the principal's @REALM part",
     flag<&ServerConfig::kerberos_remove_realm>},
    {"kerberos.canonicalizeHostNames", kNoEffect, kAlways, "",
     "read by Kerberos clients, which canonicalize the server's host name; a server does not"},
    {"kerberos.*", kRefused, kAlways, "",
     "not a Kerberos key zkd knows: it would not act on it. Remove the key or run Apache "
     "ZooKeeper"},
    {"quorum.auth.enableSasl", kHonoured, kAlways, "",
     "a server authenticates to the peers it dials as the JAAS learner section says (DIGEST-MD5 "
     "user, or Kerberos keytab) and checks those that dial it as the server section says; "
     "docs/security.md",
     flag<&ServerConfig::quorum_sasl>},
    {"quorum.auth.learnerRequireSasl", kHonoured, kAlways, "",
     "a dialer refuses a peer that offers no quorum SASL",
     flag<&ServerConfig::quorum_sasl_learner_required>},
    {"quorum.auth.serverRequireSasl", kHonoured, kAlways, "",
     "a server refuses peers that dial it without quorum SASL",
     flag<&ServerConfig::quorum_sasl_server_required>},
    {"quorum.auth.learner.saslLoginContext", kHonoured, kAlways, "",
     "the JAAS section the dialer authenticates with (default QuorumLearner)",
     text<&ServerConfig::quorum_sasl_learner_section>},
    {"quorum.auth.server.saslLoginContext", kHonoured, kAlways, "",
     "the JAAS section that checks the peers that dial (default QuorumServer)",
     text<&ServerConfig::quorum_sasl_server_section>},
    {"quorum.auth.kerberos.servicePrincipal", kHonoured, kAlways, "",
     "with Kerberos, the principal a dialer asks for, _HOST standing for the peer's host "
     "(default zkquorum/localhost)",
     text<&ServerConfig::quorum_kerberos_service_principal>},
    {"quorum.auth.*", kRefused, kAlways, "",
     "not a quorum.auth key zkd knows: it would not act on it. Remove the key"},
    {"sslQuorum", kHonoured, kAlways, "",
     "the links between servers run over TLS, each end checking the other's certificate (needs "
     "ssl.quorum.keyStore.location)",
     flag<&ServerConfig::ssl_quorum>},
    {"ssl.keyStore.location", kHonoured, kAlways, "", kTlsStore,
     tls_key<client_tls, key_store_location>},
    {"ssl.keyStore.password", kHonoured, kAlways, "", kTlsStore,
     tls_key<client_tls, key_store_password>},
    {"ssl.keyStore.passwordPath", kHonoured, kAlways, "", kTlsStore,
     tls_key<client_tls, key_store_password_path>},
    {"ssl.keyStore.type", kHonoured, kAlways, "", kTlsStore, tls_key<client_tls, key_store_type>},
    {"ssl.trustStore.location", kHonoured, kAlways, "", kTlsStore,
     tls_key<client_tls, trust_store_location>},
    {"ssl.trustStore.password", kHonoured, kAlways, "", kTlsStore,
     tls_key<client_tls, trust_store_password>},
    {"ssl.trustStore.passwordPath", kHonoured, kAlways, "", kTlsStore,
     tls_key<client_tls, trust_store_password_path>},
    {"ssl.trustStore.type", kHonoured, kAlways, "", kTlsStore,
     tls_key<client_tls, trust_store_type>},
    {"ssl.protocol", kHonoured, kAlways, "", kTlsStore, tls_key<client_tls, protocol>},
    {"ssl.enabledProtocols", kHonoured, kAlways, "", kTlsStore,
     tls_key<client_tls, enabled_protocols>},
    {"ssl.ciphersuites", kHonoured, kAlways, "", kTlsStore, tls_key<client_tls, cipher_suites>},
    {"ssl.context.supplier.class", kRefused, kAlways, "",
     "names a Java class; zkd builds its TLS context from the ssl.* keys. Remove the key"},
    {"ssl.hostnameVerification", kNoEffect, kAlways, "",
     "a server does not verify its clients' host names on the client port (as Apache)"},
    {"ssl.clientHostnameVerification", kNoEffect, kAlways, "",
     "a server does not verify its clients' host names on the client port (as Apache)"},
    {"ssl.allowReverseDnsLookup", kNoEffect, kAlways, "", "zkd verifies no host names"},
    {"ssl.crl", kHonoured, kAlways, "",
     "true: the client port's certificates are checked against the CRLs their distribution points "
     "name "
     "(http://, file://); one whose list cannot be had is refused",
     tls_key<client_tls, crl>},
    {"ssl.ocsp", kHonoured, kAlways, "",
     "true: each certificate's OCSP responder (http://) is asked first, its CRLs when the "
     "responder has no answer",
     tls_key<client_tls, ocsp>},
    {"ssl.clientAuth", kHonoured, kAlways, "", kTlsStore, tls_key<client_tls, client_auth>},
    {"ssl.handshakeDetectionTimeoutMillis", kNoEffect, kAlways, "",
     "zkd waits for a connection's first byte within the session handshake timeout"},
    {"ssl.sslProvider", kNoEffect, kAlways, "", "zkd's TLS is OpenSSL's"},
    {"ssl.quorum.keyStore.location", kHonoured, kAlways, "", kQuorumTlsStore,
     tls_key<quorum_tls, key_store_location>},
    {"ssl.quorum.keyStore.password", kHonoured, kAlways, "", kQuorumTlsStore,
     tls_key<quorum_tls, key_store_password>},
    {"ssl.quorum.keyStore.passwordPath", kHonoured, kAlways, "", kQuorumTlsStore,
     tls_key<quorum_tls, key_store_password_path>},
    {"ssl.quorum.keyStore.type", kHonoured, kAlways, "", kQuorumTlsStore,
     tls_key<quorum_tls, key_store_type>},
    {"ssl.quorum.trustStore.location", kHonoured, kAlways, "", kQuorumTlsStore,
     tls_key<quorum_tls, trust_store_location>},
    {"ssl.quorum.trustStore.password", kHonoured, kAlways, "", kQuorumTlsStore,
     tls_key<quorum_tls, trust_store_password>},
    {"ssl.quorum.trustStore.passwordPath", kHonoured, kAlways, "", kQuorumTlsStore,
     tls_key<quorum_tls, trust_store_password_path>},
    {"ssl.quorum.trustStore.type", kHonoured, kAlways, "", kQuorumTlsStore,
     tls_key<quorum_tls, trust_store_type>},
    {"ssl.quorum.protocol", kHonoured, kAlways, "", kQuorumTlsStore, tls_key<quorum_tls, protocol>},
    {"ssl.quorum.enabledProtocols", kHonoured, kAlways, "", kQuorumTlsStore,
     tls_key<quorum_tls, enabled_protocols>},
    {"ssl.quorum.ciphersuites", kHonoured, kAlways, "", kQuorumTlsStore,
     tls_key<quorum_tls, cipher_suites>},
    {"ssl.quorum.context.supplier.class", kRefused, kAlways, "",
     "names a Java class; zkd builds its TLS context from the ssl.quorum.* keys. Remove the key"},
    {"ssl.quorum.hostnameVerification", kHonoured, kAlways, "",
     "true (default): a dialed peer's certificate must name the host of its server.N line",
     flag<&ServerConfig::quorum_verify_host>},
    {"ssl.quorum.clientHostnameVerification", kHonoured, kAlways, "",
     "true (default: as hostnameVerification): a dialing peer's certificate must name its "
     "address",
     [](ConfigParser&, const Property& line, ServerConfig& c) {
       c.quorum_verify_client_host = java_true(line.value);
       return true;
     }},
    {"ssl.quorum.allowReverseDnsLookup", kNoEffect, kAlways, "",
     "zkd checks a peer's address against the IP names of its certificate, without DNS"},
    {"ssl.quorum.crl", kHonoured, kAlways, "",
     "true: a peer's (and the admin server's) certificates are checked against the CRLs their "
     "distribution points name "
     "(http://, file://); one whose list cannot be had is refused",
     tls_key<quorum_tls, crl>},
    {"ssl.quorum.ocsp", kHonoured, kAlways, "",
     "true: each certificate's OCSP responder (http://) is asked first, its CRLs when the "
     "responder has no answer",
     tls_key<quorum_tls, ocsp>},
    {"ssl.quorum.clientAuth", kHonoured, kAlways, "", kQuorumTlsStore,
     tls_key<quorum_tls, client_auth>},
    {"ssl.quorum.handshakeDetectionTimeoutMillis", kNoEffect, kAlways, "",
     "zkd waits for a peer's first byte within its hello timeout (10 s)"},
    {"ssl.*", kRefused, kAlways, "",
     "not an ssl key zkd knows: it would not act on it. Remove the key or run Apache ZooKeeper"},
    {"sslQuorumReloadCertFiles", kHonoured, kAlways, "",
     "new peer connections use the ssl.quorum stores again once their files change",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.boolean(line, c.quorum_tls_settings.reload);
     }},
    {"client.certReload", kHonoured, kAlways, "",
     "new TLS connections use the key and trust stores again once their files change",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.boolean(line, c.client_tls_settings.reload);
     }},
    {"client.portUnification", kHonoured, kAlways, "",
     "the plain client port also takes TLS connections (needs ssl.keyStore.location)",
     flag<&ServerConfig::port_unification>},
    {"fips-mode", kNoEffect, kAlways, "",
     "only changes how Apache's Java TLS checks certificates; zkd's is OpenSSL's"},
    // Experimental and unsafe options.
    {"readonlymode.enabled", kHonoured, kAlways, "",
     "true: without a quorum for max(2 s, tickTime), serve reads to clients that allow a read-only "
     "server (Apache reads only the JVM property -Dreadonlymode.enabled=true in SERVER_JVMFLAGS, "
     "which zkd reads too)",
     flag<&ServerConfig::read_only_mode>},
    {"follower.skipLearnerRequestToNextProcessor", kNoEffect, kAlways, "", kQuorumInternals},
    {"forceSync", kHonoured, kAlways, "", "no: never fsync the txn log (unsafe)",
     [](ConfigParser&, const Property& line, ServerConfig& c) {
       c.force_sync = line.value != "no";  // Apache: only "no" turns fsync off
       return true;
     }},
    {"jute.maxbuffer", kHonoured, kAlways, "",
     "the largest request a client may send (Apache ignores this zoo.cfg key; zkd applies it)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.jute_max_buffer, 1,
                                     "must be a positive number of bytes");
     }},
    {"jute.maxbuffer.extrasize", kNoEffect, kAlways, "",
     "zkd limits requests by jute.maxbuffer alone"},
    {"skipACL", kHonoured, kAlways, "",
     "yes: no ACL is checked, every client may do everything (as Apache; for trusted networks "
     "only)",
     [](ConfigParser&, const Property& line, ServerConfig& c) {
       c.skip_acl = line.value == "yes";
       return true;
     }},
    // Data directory and database creation.
    {"datadir.autocreate", kWarned, kFalse, "",
     "zkd always creates a missing dataDir and dataLogDir"},
    {"db.autocreate", kWarned, kFalse, "",
     "zkd always starts an empty database in an empty dataDir"},
    // Performance tuning.
    {"nio.numSelectorThreads", kNoEffect, kAlways, "", kJvm},
    {"nio.numWorkerThreads", kNoEffect, kAlways, "", kJvm},
    {"commitProcessor.numWorkerThreads", kNoEffect, kAlways, "", kJvm},
    {"commitProcessor.maxReadBatchSize", kNoEffect, kAlways, "", kJvm},
    {"commitProcessor.maxCommitBatchSize", kNoEffect, kAlways, "", kJvm},
    {"znode.container.checkIntervalMs", kHonoured, kAlways, "",
     "how often containers and TTL nodes are checked (Apache: JVM property only)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.container_check_interval_ms, 1,
                                     "must be a positive number of ms");
     }},
    {"znode.container.maxPerMinute", kHonoured, kAlways, "",
     "deletions of containers and TTL nodes per minute (Apache: JVM property only)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.container_max_per_minute, 1,
                                     "must be a positive number");
     }},
    {"znode.container.maxNeverUsedIntervalMs", kHonoured, kAlways, "",
     "age at which a never-used container goes (Apache: JVM property only)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.container_max_never_used_interval_ms, 0,
                                     "must not be negative");
     }},
    {"messageTracker.BufferSize", kNoEffect, kAlways, "",
     "sizes Apache's debugging message tracker; zkd has none"},
    {"messageTracker.Enabled", kNoEffect, kAlways, "",
     "switches Apache's debugging message tracker; zkd has none"},
    {"jvm.pause.*", kNoEffect, kAlways, "",
     "Apache's JVM pause monitor; zkd has no garbage collector to watch"},
    // AdminServer.
    {"admin.rateLimiterIntervalInMS", kHonoured, kAlways, "",
     "one snapshot per this many microseconds and one restore per this many ms (Apache 3.9's "
     "two units; default 300000)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.admin_rate_limiter_interval, 0,
                                     "must be a number >= 0");
     }},
    {"admin.snapshot.enabled", kHonoured, kAlways, "",
     "false: the admin snapshot command answers 503", flag<&ServerConfig::admin_snapshot_enabled>},
    {"admin.restore.enabled", kHonoured, kAlways, "",
     "false: the admin restore command answers 503", flag<&ServerConfig::admin_restore_enabled>},
    {"admin.broadcast.enabled", kHonoured, kAlways, "",
     "zkd only; true: the admin broadcast command (the paper's Figure 7 load) runs; default false",
     flag<&ServerConfig::admin_broadcast_enabled>},
    {"admin.needClientAuth", kHonoured, kAlways, "",
     "with admin.forceHttps: the admin server requires a trusted client certificate",
     flag<&ServerConfig::admin_need_client_auth>},
    {"admin.forceHttps", kHonoured, kAlways, "",
     "the admin server speaks HTTPS only, with the ssl.quorum.* key and trust stores (as Apache)",
     flag<&ServerConfig::admin_force_https>},
    {"admin.portUnification", kHonoured, kAlways, "",
     "the admin port takes HTTPS (with the ssl.quorum.* stores, as admin.forceHttps) and HTTP; "
     "admin.forceHttps wins",
     flag<&ServerConfig::admin_port_unification>},
    {"admin.enableServer", kHonoured, kAlways, "", "false: no admin server",
     flag<&ServerConfig::admin_enabled>},
    {"admin.serverAddress", kHonoured, kAlways, "", "the admin server's address",
     text<&ServerConfig::admin_address>},
    {"admin.serverPort", kHonoured, kAlways, "", "the admin server's port",
     port<&ServerConfig::admin_port>},
    {"admin.idleTimeout", kHonoured, kAlways, "", "ms a connection may take to send its request",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.admin_idle_timeout_ms, 1,
                                     "must be a positive number of ms");
     }},
    {"admin.commandURL", kHonoured, kAlways, "", "where the commands live",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       if (!line.value.starts_with('/')) return parser.fail(line, "must start with '/'");
       c.admin_command_url = line.value;
       while (c.admin_command_url.size() > 1 && c.admin_command_url.ends_with('/')) {
         c.admin_command_url.pop_back();
       }
       return true;
     }},
    // Metrics providers.
    {"metricsProvider.className", kHonoured, kAlways, "",
     "Apache's Prometheus provider: zkd serves /metrics",
     text<&ServerConfig::metrics_provider_class>},
    {"metricsProvider.httpHost", kHonoured, kAlways, "", "the /metrics address",
     text<&ServerConfig::metrics_http_host>},
    {"metricsProvider.httpPort", kHonoured, kAlways, "", "the /metrics port",
     port<&ServerConfig::metrics_http_port>},
    {"metricsProvider.exportJvmInfo", kNoEffect, kAlways, "", "zkd has no JVM to report on"},
    {"metricsProvider.numWorkerThreads", kNoEffect, kAlways, "", kJvm},
    {"metricsProvider.maxQueueSize", kNoEffect, kAlways, "", kJvm},
    {"metricsProvider.workerShutdownTimeoutMs", kNoEffect, kAlways, "", kJvm},
    {"metricsProvider.*", kNoEffect, kAlways, "",
     "passed by Apache to its metrics provider; zkd's /metrics takes only httpHost and httpPort"},
    // zkd's own keys: Apache turns them into system properties it never reads.
    {"zkd.peerTimeoutMs", kHonoured, kAlways, "",
     "how long (ms, default 500) a leader and its followers may go without hearing from each other "
     "before "
     "a new leader is elected; 0: syncLimit alone",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.peer_timeout_ms, 0,
                                     "must be 0 or a number of milliseconds");
     }},
    {"zkd.peerProtocol", kHonoured, kAlways, "",
     "apache: speak Apache ZooKeeper's server-to-server protocol, so that Apache servers and zkd "
     "share an ensemble; zkd (the default): zkd's own",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       if (line.value != "apache" && line.value != "zkd") {
         return parser.fail(line, "must be apache or zkd");
       }
       c.apache_peer_protocol = line.value == "apache";
       return true;
     }},
    {"zkd.snapshotBytesPerSecond", kHonoured, kAlways, "",
     "the most bytes a second a snapshot writes (before compression), so that a big tree's "
     "snapshot leaves the disk to the txn log (docs/durability.md); default 67108864 (64 MiB/s), "
     "0: no cap",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.snapshot_bytes_per_second, int64_t{0},
                                     "must be 0 or a number of bytes a second");
     }},
    {"zkd.quorumSync", kHonoured, kAlways, "",
     "true: sync is answered once a quorum has confirmed the leader, so sync and a read after it "
     "are linearizable (default false, as Apache)",
     flag<&ServerConfig::quorum_sync>},
    {"zkd.auditLogFile", kHonoured, kAlways, "",
     "the audit log's file (default dataDir/zookeeper_audit.log), when audit.enable is true",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       if (line.value.empty()) return parser.fail(line, "is empty");
       c.audit_log_file = line.value;
       return true;
     }},
    {"zkd.auditLogMaxFileSize", kHonoured, kAlways, "",
     "the size at which the audit log is rolled over: bytes, or a number with KB, MB or GB "
     "(default 10MB, as Apache's appender; 0: never)",
     audit_log_max_file_size},
    {"zkd.auditLogMaxBackupIndex", kHonoured, kAlways, "",
     "rolled-over audit logs kept, zookeeper_audit.log.1 (newest) to .N (default 10, as Apache's "
     "appender; 0: none)",
     [](ConfigParser& parser, const Property& line, ServerConfig& c) {
       return parser.number_at_least(line, c.audit_log_max_backup_index, 0,
                                     "must be 0 or a number of files");
     }},
});

bool is_pattern(std::string_view key) { return key.ends_with(".*"); }

// Levenshtein distance, ignoring case.
size_t edit_distance(std::string_view a, std::string_view b) {
  const std::string x = lower_case(a);
  const std::string y = lower_case(b);
  std::vector<size_t> row(y.size() + 1);
  for (size_t j = 0; j <= y.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= x.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= y.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (x[i - 1] == y[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[y.size()];
}

}  // namespace

std::span<const ConfigKey> config_keys() { return kKeys; }

const ConfigKey* find_config_key(std::string_view key) {
  const ConfigKey* best = nullptr;
  for (const ConfigKey& entry : kKeys) {
    if (!is_pattern(entry.key)) {
      if (entry.key == key) return &entry;
      continue;
    }
    const std::string_view prefix = entry.key.substr(0, entry.key.size() - 1);  // keeps the '.'
    if (key.size() > prefix.size() && key.starts_with(prefix) &&
        (best == nullptr || best->key.size() < entry.key.size())) {
      best = &entry;
    }
  }
  return best;
}

bool class_applies(const ConfigKey& entry, std::string_view value) {
  switch (entry.when) {
    case kAlways:
      return true;
    case kTrue:
      return java_true(value);
    case kFalse:
      return !java_true(value);
    case kIs:
      return lower_case(value) == lower_case(entry.value);
    case kIsNot:
      return lower_case(value) != lower_case(entry.value);
  }
  return true;
}

std::string class_label(const ConfigKey& entry) {
  std::string label;
  switch (entry.key_class) {
    case kHonoured:
      label = "honoured";
      break;
    case kNoEffect:
      label = "no effect";
      break;
    case kWarned:
      label = "warned";
      break;
    case kRefused:
      label = "refused";
      break;
  }
  switch (entry.when) {
    case kAlways:
      break;
    case kTrue:
      label += " when true";
      break;
    case kFalse:
      label += " when false";
      break;
    case kIs:
      label += " when " + std::string(entry.value);
      break;
    case kIsNot:
      label +=
          entry.value.empty() ? std::string(" when set") : " unless " + std::string(entry.value);
      break;
  }
  return label;
}

std::string closest_config_key_hint(std::string_view unknown) {
  constexpr std::string_view kPrefix = "zookeeper.";
  if (unknown.starts_with(kPrefix)) {
    const std::string_view rest = unknown.substr(kPrefix.size());
    if (find_config_key(rest) != nullptr) {
      return "zoo.cfg keys drop Apache's 'zookeeper.' prefix: did you mean '" + std::string(rest) +
             "'?";
    }
  }
  const ConfigKey* closest = nullptr;
  size_t best = 0;
  for (const ConfigKey& entry : kKeys) {
    if (is_pattern(entry.key)) continue;
    const size_t d = edit_distance(unknown, entry.key);
    if (closest == nullptr || d < best) {
      closest = &entry;
      best = d;
    }
  }
  // Close: a few edits, fewer for short keys (so that "foo" suggests nothing).
  const size_t allowed = std::min<size_t>(3, unknown.size() / 4);
  if (closest == nullptr || best > allowed) return {};
  return "did you mean '" + std::string(closest->key) + "'?";
}

std::string lower_case(std::string_view s) {
  std::string lower;
  for (char c : s) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return lower;
}

bool java_true(std::string_view value) { return lower_case(value) == "true"; }

}  // namespace zkd::server
