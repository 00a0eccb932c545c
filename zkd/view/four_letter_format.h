// SPDX-License-Identifier: Apache-2.0
// The text of Apache 3.8's four-letter words (§12.2, §12.3 of
// docs/wire-protocol.md), as pure functions of plain snapshots, so that monitoring tools
// that parse Apache's output parse ours. Gathering the snapshots is the
// status view's job (status_view.h); nothing here reads global state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "zkd/view/latency_stats.h"
#include "zkd/view/summary.h"

namespace zkd::server {

// A double as Java's Double.toString prints it after Apache rounds it to four
// decimals: "0.0", "1.5", "39.3333".
std::string java_double(double value);
// Lowercase hex without padding, like Long.toHexString: 0x prefix not included.
std::string java_hex(int64_t value);
// A wall-clock time in ms as Java's Date.toString, in UTC:
// "Thu Nov 21 14:22:12 UTC 2024".
std::string java_date(int64_t epoch_ms);

// One client connection, as cons, stat and dump print it.
struct ConnectionSnapshot {
  std::string remote;  // "/127.0.0.1:54321"
  int interest_ops = 1;
  uint64_t queued = 0;
  uint64_t received = 0;
  uint64_t sent = 0;
  int64_t session_id = 0;  // 0: no session (yet); the long form then stops after sent=
  std::string last_operation = "NA";
  int64_t established_ms = 0;  // wall clock; 0 = not established
  int32_t timeout_ms = 0;
  int64_t last_cxid = -1;  // -1: none yet (not printed)
  int64_t last_zxid = 0;
  int64_t last_response_ms = 0;
  LatencyStats latency;
};

// " /127.0.0.1:54321[1](queued=0,recved=1,sent=1[,sid=0x...,...])" without
// a newline; `brief` stops after sent= (stat), the long form is cons'.
std::string format_connection(const ConnectionSnapshot& c, bool brief);

struct ServerSummary {
  std::string version;  // "3.8.0-zk-0.1.0, built on 2024-11-21 14:00 UTC"
  LatencyStats latency;
  uint64_t packets_received = 0;
  uint64_t packets_sent = 0;
  uint64_t connections = 0;
  uint64_t outstanding = 0;
  int64_t last_zxid = 0;
  std::string mode = "standalone";
  int64_t node_count = 0;
  // Not printed by srvr; the admin server's server_stats carries them.
  int64_t uptime_ms = 0;
  uint64_t auth_failures = 0;
};

std::string format_srvr(const ServerSummary& s);
std::string format_stat(const ServerSummary& s, const std::vector<ConnectionSnapshot>& clients);
std::string format_cons(const std::vector<ConnectionSnapshot>& clients);

// mntr: "zk_<key>\t<value>\n" per entry, in the order given.
std::string format_mntr(const std::vector<std::pair<std::string, std::string>>& values);

// A summary's figures as the monitor prints them (Apache's
// AvgMinMaxCounter, and AvgMinMaxPercentileCounter when `advanced`).
struct SummaryFigures {
  int64_t count = 0;
  int64_t sum = 0;
  int64_t min = 0;
  int64_t max = 0;
  double average = 0.0;
  // Apache's DetailLevel.ADVANCED: mntr adds p50_, p95_, p99_ and p999_, and
  // Prometheus gets the 0.5, 0.9 and 0.99 quantiles; a basic summary has
  // Prometheus's 0.5 only.
  bool advanced = false;
  // False for figures kept without a histogram (LatencyStats): no quantiles.
  bool has_quantiles = false;
  int64_t p50 = 0, p90 = 0, p95 = 0, p99 = 0, p999 = 0;
};
SummaryFigures summary_figures(const Summary& s, bool advanced);
SummaryFigures summary_figures(const LatencyStats& s);

// One of the monitor figures, typed, so that mntr (text), the admin server's
// monitor (JSON) and /metrics (Prometheus) print the same figures: an
// integer, a double (java_double in mntr), a text (version, server_state), or
// a summary, which Apache prints as avg_<key>, min_<key>, max_<key>,
// cnt_<key> and sum_<key> (and p50_<key>... when advanced).
using MonitorValue = std::variant<int64_t, double, std::string, SummaryFigures>;
// How Apache's metrics provider registers the figure: Prometheus's TYPE.
enum class MetricType { kGauge, kCounter };
struct MonitorEntry {
  std::string key;  // Apache's name, without mntr's "zk_" prefix
  MonitorValue value;
  MetricType type = MetricType::kGauge;  // integers and doubles; summaries are summaries
  // A member of one of Apache's summary sets (read_per_namespace, ...): the
  // set's key, printed by mntr as <prefix>_<label>_<key>, by Prometheus as the
  // label key="<label>". Empty for a plain figure.
  std::string label = {};
};
// The figures as the admin server's monitor command and mntr name them,
// summaries expanded, in order.
using MonitorScalar = std::variant<int64_t, double, std::string>;
std::vector<std::pair<std::string, MonitorScalar>> monitor_fields(
    const std::vector<MonitorEntry>& entries);
// The same figures as mntr's key/value texts.
std::vector<std::pair<std::string, std::string>> monitor_texts(
    const std::vector<MonitorEntry>& entries);

struct ConfSnapshot {
  int client_port = 0;
  std::string data_dir;  // printed with "/version-2" appended, as Apache does
  int64_t data_dir_size = 0;
  std::string data_log_dir;  // likewise
  int64_t data_log_size = 0;
  int32_t tick_time_ms = 0;
  int32_t max_client_cnxns = 0;
  int32_t min_session_timeout_ms = 0;
  int32_t max_session_timeout_ms = 0;
  int32_t client_port_listen_backlog = -1;
  int64_t server_id = 0;
  // In an ensemble, what Apache's QuorumZooKeeperServer adds after serverId.
  struct Quorum {
    int32_t init_limit = 0;
    int32_t sync_limit = 0;
    int election_port = 0;  // this server's
    int quorum_port = 0;
    bool observer = false;   // printed as peerType=1 (Apache's LearnerType ordinal)
    std::string membership;  // membership.h's text, printed without a line end
  };
  std::optional<Quorum> quorum;
};
std::string format_conf(const ConfSnapshot& c);

// "Environment:\n" then key=value lines in the order given.
std::string format_envi(const std::vector<std::pair<std::string, std::string>>& values);

struct DirsSnapshot {
  int64_t data_dir_size = 0;  // bytes under dataDir/version-2
  int64_t log_dir_size = 0;   // bytes under dataLogDir/version-2
};
std::string format_dirs(int64_t data_dir_size, int64_t log_dir_size);
// hash: one "<zxid in hex, no 0x>: <digest>" line per (zxid, digest).
std::string format_hash(const std::vector<std::pair<int64_t, int64_t>>& digests);

struct SessionBucket {
  int64_t expire_at_ms = 0;  // wall clock
  std::vector<int64_t> sessions;
};
struct DumpSnapshot {
  std::vector<SessionBucket> session_buckets;  // sorted by time
  size_t session_count = 0;
  std::vector<std::pair<int64_t, std::vector<std::string>>> ephemerals;  // per session
  struct ConnectionBucket {
    int64_t expire_at_ms = 0;
    std::vector<ConnectionSnapshot> connections;
  };
  std::vector<ConnectionBucket> connection_buckets;
  size_t connection_count = 0;
};
std::string format_dump(const DumpSnapshot& d);

struct WatchCounts {
  int64_t connections = 0;  // connections watching something
  int64_t paths = 0;        // watched paths
  int64_t total = 0;        // watches
};
using WatchesBySession = std::vector<std::pair<int64_t, std::vector<std::string>>>;
using WatchesByPath = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// wchs, wchc (per session, paths) and wchp (per path, sessions); each ends
// with the blank line Apache prints.
std::string format_wchs(int64_t connections, int64_t paths, int64_t total_watches);
std::string format_wchc(const std::vector<std::pair<int64_t, std::vector<std::string>>>& watches);
std::string format_wchp(const std::vector<std::pair<std::string, std::vector<int64_t>>>& watches);

}  // namespace zkd::server
