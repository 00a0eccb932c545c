// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/status_view.h"
#include "zkd/server/keeper_words.h"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "libzk/wire/jute.h"
#include "zkd/server/four_letter_whitelist.h"
#include "zkd/server/reconfig.h"
#include "zkd/server/version.h"

namespace zkd::server {
namespace {

int64_t directory_size(const std::filesystem::path& dir) {
  std::error_code ec;
  int64_t total = 0;
  std::filesystem::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec)) {
      auto size = it->file_size(size_ec);
      if (!size_ec) total += static_cast<int64_t>(size);
    }
  }
  return total;
}

int64_t open_file_descriptors() {
  std::error_code ec;
  int64_t n = 0;
  std::filesystem::directory_iterator it("/proc/self/fd", ec), end;
  for (; !ec && it != end; it.increment(ec)) ++n;
  return n;
}

int64_t max_file_descriptors() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
  return static_cast<int64_t>(limit.rlim_cur);
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

std::vector<std::pair<std::string, std::string>> environment_values() {
  std::vector<std::pair<std::string, std::string>> out;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  utsname un{};
  bool have_uname = uname(&un) == 0;
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec);
  long pages = sysconf(_SC_PHYS_PAGES);
  long avail = sysconf(_SC_AVPHYS_PAGES);
  long page_size = sysconf(_SC_PAGESIZE);
  auto mb = [&](long p) {
    return std::to_string(p > 0 && page_size > 0 ? p / (1048576 / page_size) : 0) + "MB";
  };
  out.emplace_back("zookeeper.version", full_version());
  out.emplace_back("host.name", host);
  // zkd is not a JVM; the java.* keys stay for tools that expect them.
  out.emplace_back("java.version", "n/a");
  out.emplace_back("java.vendor", "n/a");
  out.emplace_back("java.home", "n/a");
  out.emplace_back("java.class.path", "n/a");
  out.emplace_back("java.library.path", "n/a");
  out.emplace_back("java.io.tmpdir", env_or("TMPDIR", "/tmp"));
  out.emplace_back("java.compiler", "<NA>");
  out.emplace_back("os.name", have_uname ? un.sysname : "unknown");
  out.emplace_back("os.arch", have_uname ? un.machine : "unknown");
  out.emplace_back("os.version", have_uname ? un.release : "unknown");
  out.emplace_back("user.name", env_or("USER", "?"));
  out.emplace_back("user.home", env_or("HOME", "?"));
  out.emplace_back("user.dir", ec ? std::string("?") : cwd.string());
  out.emplace_back("os.memory.free", mb(avail));
  out.emplace_back("os.memory.max", mb(pages));
  out.emplace_back("os.memory.total", mb(pages));
  return out;
}

std::string absolute_text(const std::filesystem::path& p) {
  std::error_code ec;
  auto a = std::filesystem::absolute(p, ec);
  return (ec ? p : a).lexically_normal().string();
}

}  // namespace

StatusView::StatusView(Sources sources) : sources_(std::move(sources)) {}

bool StatusView::serving() const {
  const ReplicaHost* r = replica();
  return r == nullptr || r->status().serving;
}

std::string StatusView::yield_leadership() {
  return sources_.yield_leadership ? sources_.yield_leadership()
                                   : "Failed to yield leadership: a standalone server has none\n";
}

bool StatusView::read_only() const { return !serving() && sources_.read_only.active(); }

bool StatusView::diverged() const {
  const ReplicaHost* r = replica();
  return r != nullptr && r->diverged();
}

std::vector<ConnectionSnapshot> StatusView::connection_snapshots() const {
  std::vector<ConnectionSnapshot> out;
  for (const auto& [id, c] : sources_.clients) {
    ConnectionSnapshot s;
    s.remote = c.connection->remote_text();
    s.interest_ops = c.connection->closing() ? 0 : 1;
    s.queued = c.connection->queued();
    s.received = c.connection->packets_received();
    s.sent = c.connection->packets_sent();
    s.session_id = c.phase == ClientState::Phase::kHandshake ? 0 : c.session_id;
    s.last_operation = c.last_operation;
    s.established_ms = c.opened_wall_ms;
    s.timeout_ms = c.timeout_ms;
    s.last_cxid = c.last_cxid;
    s.last_zxid = c.last_zxid;
    s.last_response_ms = c.last_response_wall_ms;
    s.latency = c.latency;
    out.push_back(std::move(s));
  }
  // Stable output: by remote address text.
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.remote < b.remote; });
  return out;
}

ServerSummary StatusView::summary() const {
  ServerSummary s;
  s.version = full_version();
  s.latency = sources_.stats.latency;
  s.packets_received = sources_.stats.packets_received;
  s.packets_sent = sources_.stats.packets_sent;
  s.connections = sources_.clients.size();
  s.outstanding = sources_.writes_pending();  // writes waiting for the disk
  s.last_zxid = sources_.db.last_zxid();
  s.mode = replica() == nullptr ? "standalone"
           : read_only()        ? "read-only"
                                : replica_mode(replica()->status().role);
  s.node_count = sources_.db.counts().znodes;
  s.uptime_ms = sources_.clock.steady_ms() - sources_.stats.started_steady_ms;
  s.auth_failures = sources_.stats.auth_failures;
  return s;
}

std::vector<ConnectionSnapshot> StatusView::connections() const { return connection_snapshots(); }

ConfSnapshot StatusView::conf() const {
  ConfSnapshot c;
  c.client_port = sources_.client_port();
  c.data_dir = absolute_text(sources_.config.data_dir);
  c.data_dir_size = directory_size(sources_.config.data_dir / "version-2");
  c.data_log_dir = absolute_text(sources_.config.data_log_dir);
  c.data_log_size = directory_size(sources_.config.data_log_dir / "version-2");
  c.tick_time_ms = sources_.config.tick_time_ms;
  c.max_client_cnxns = sources_.config.max_client_cnxns;
  c.min_session_timeout_ms = sources_.config.min_session_timeout_ms;
  c.max_session_timeout_ms = sources_.config.max_session_timeout_ms;
  c.server_id = replica() != nullptr ? sources_.config.my_id : 0;
  const auto self = sources_.config.quorum_servers.find(sources_.config.my_id);
  if (replica() != nullptr && self != sources_.config.quorum_servers.end()) {
    c.quorum = ConfSnapshot::Quorum{.init_limit = sources_.config.init_limit.value_or(0),
                                    .sync_limit = sources_.config.sync_limit.value_or(0),
                                    .election_port = self->second.election_port,
                                    .quorum_port = self->second.quorum_port,
                                    .observer = self->second.observer,
                                    // The tree's: a reconfiguration changes it.
                                    .membership = sources_.db.config_node().first};
  }
  return c;
}

std::vector<std::pair<std::string, std::string>> StatusView::environment() const {
  return environment_values();
}

DirsSnapshot StatusView::dirs() const {
  return DirsSnapshot{directory_size(sources_.config.data_dir / "version-2"),
                      directory_size(sources_.config.data_log_dir / "version-2")};
}

DumpSnapshot StatusView::dump() const {
  DumpSnapshot d;
  // Buckets are kept on the steady clock; print them as wall-clock dates.
  int64_t offset = sources_.clock.wall_ms() - sources_.clock.steady_ms();
  for (auto& [at, sessions] : sources_.tracker.buckets()) {
    d.session_buckets.push_back(SessionBucket{at + offset, sessions});
  }
  d.session_count = sources_.tracker.size();
  for (tree::SessionId s : sources_.db.sessions()) {
    auto paths = sources_.db.ephemerals(s);
    if (!paths.empty()) d.ephemerals.emplace_back(s, std::move(paths));
  }
  std::map<int64_t, std::vector<ConnectionSnapshot>> buckets;
  for (auto& snapshot : connection_snapshots()) {
    int64_t last_seen =
        snapshot.last_response_ms != 0 ? snapshot.last_response_ms : snapshot.established_ms;
    int64_t at = last_seen + std::max<int64_t>(snapshot.timeout_ms, 0);
    buckets[at].push_back(std::move(snapshot));
    ++d.connection_count;
  }
  for (auto& [at, list] : buckets) d.connection_buckets.push_back({at, std::move(list)});
  return d;
}

WatchCounts StatusView::watch_counts() const {
  auto counts = sources_.db.counts();
  return WatchCounts{static_cast<int64_t>(counts.watching_connections),
                     static_cast<int64_t>(counts.watched_paths),
                     static_cast<int64_t>(counts.data_watches)};
}

WatchesBySession StatusView::watches_by_session() const {
  std::map<net::ConnectionId, const ClientState*> by_id;
  for (const auto& [id, c] : sources_.clients) by_id.emplace(id, &c);
  WatchesBySession watches;
  for (const auto& [id, c] : by_id) {
    auto paths = sources_.db.watched_paths(id);
    if (!paths.empty()) watches.emplace_back(c->session_id, std::move(paths));
  }
  return watches;
}

WatchesByPath StatusView::watches_by_path() const {
  WatchesByPath watches;
  for (auto& [path, watchers] : sources_.db.watchers_by_path()) {
    std::vector<int64_t> sessions;
    for (auto w : watchers) {
      auto it = sources_.clients.find(w);
      if (it != sources_.clients.end()) sessions.push_back(it->second.session_id);
    }
    watches.emplace_back(path, std::move(sessions));
  }
  return watches;
}

std::optional<admin::ServerView::Leader> StatusView::leader() const {
  if (replica() == nullptr) return std::nullopt;
  Leader l;
  l.is_leader = replica()->status().role == zab::Role::kLeading;
  l.leader_id = static_cast<int64_t>(replica()->status().leader);
  auto it = sources_.config.quorum_servers.find(l.leader_id);
  if (it != sources_.config.quorum_servers.end()) l.leader_ip = it->second.host;
  return l;
}

std::map<int64_t, std::string> StatusView::voting_view() const {
  std::map<int64_t, std::string> view;
  if (replica() == nullptr) return view;
  for (const auto& [id, s] : sources_.config.quorum_servers) {
    std::string host = s.host.find(':') != std::string::npos ? "[" + s.host + "]" : s.host;
    std::string line = host + ":" + std::to_string(s.quorum_port) + ":" +
                       std::to_string(s.election_port) +
                       (s.observer ? ":observer" : ":participant");
    if (s.client_port != 0 && !s.client_address.empty()) {
      line += ";" + s.client_address + ":" + std::to_string(s.client_port);
    }
    view.emplace(id, std::move(line));
  }
  return view;
}

admin::ServerView::SnapshotInfo StatusView::last_snapshot() const {
  return sources_.snapshots.last_snapshot();
}

std::vector<std::pair<int64_t, int64_t>> StatusView::digests() const {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& entry : sources_.db.digest_log()) {
    out.emplace_back(entry.zxid, static_cast<int64_t>(entry.digest));
  }
  return out;
}

std::string StatusView::initial_configuration() const { return sources_.config.text; }

void StatusView::reset_server_stats() {
  sources_.stats.latency.reset();
  sources_.stats.packets_received = sources_.stats.packets_sent = 0;
  // Apache's srst resets its ServerMetrics too (ServerStats.reset).
  reset_metrics(sources_.stats.metrics);
}

void StatusView::reset_connection_stats() {
  for (auto& [id, c] : sources_.clients) c.reset_stats();
}

std::vector<MonitorEntry> StatusView::monitor() const {
  auto counts = sources_.db.counts();
  std::vector<MonitorEntry> v;
  auto add = [&v](std::string key, auto value) {
    using T = decltype(value);
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, SummaryFigures>) {
      v.push_back({std::move(key), value});
    } else if constexpr (std::is_convertible_v<T, std::string>) {
      v.push_back({std::move(key), std::string(value)});
    } else {
      v.push_back({std::move(key), static_cast<int64_t>(value)});
    }
  };
  const ServerSummary s = summary();
  add("version", s.version);
  add("server_state", s.mode);
  add("ephemerals_count", counts.ephemerals);
  add("min_latency", sources_.stats.latency.min());
  add("avg_latency", sources_.stats.latency.average());
  add("max_latency", sources_.stats.latency.max());
  add("packets_received", sources_.stats.packets_received);
  add("packets_sent", sources_.stats.packets_sent);
  add("num_alive_connections", sources_.clients.size());
  add("outstanding_requests", sources_.writes_pending());
  add("znode_count", counts.znodes);
  add("global_sessions", sources_.tracker.size());
  add("local_sessions", 0);
  add("watch_count", counts.data_watches + counts.child_watches);
  add("approximate_data_size", counts.approximate_data_size);
  add("open_file_descriptor_count", open_file_descriptors());
  add("max_file_descriptor_count", max_file_descriptors());
  if (replica() != nullptr && replica()->status().role == zab::Role::kLeading) {
    const auto& core = replica()->core();
    add("learners", core.synced_learners() + core.synced_observers());
    add("synced_followers", core.synced_learners());
    add("synced_observers", core.synced_observers());
    add("pending_syncs", core.pending_syncs());
    const Metrics& m = sources_.stats.metrics;
    add("leader_uptime",
        m.leading_since_ms < 0 ? 0 : sources_.clock.steady_ms() - m.leading_since_ms);
    add("last_proposal_size", m.proposal_size.last);
    add("min_proposal_size", m.proposal_size.min);
    add("max_proposal_size", m.proposal_size.max);
  }
  if (replica() != nullptr) {
    // Apache's QuorumPeer: the voting members of the current membership
    // (the tree's, which a reconfiguration changes).
    const auto members = parse_membership_text(sources_.db.config_node().first);
    const QuorumServers& servers = members ? members->first : sources_.config.quorum_servers;
    add("quorum_size", std::count_if(servers.begin(), servers.end(),
                                     [](const auto& s) { return !s.second.observer; }));
  }
  add("uptime", s.uptime_ms);
  add("connection_drop_probability", sources_.connection_drop_probability());
  add("auth_failed_count", sources_.stats.auth_failures);
  v.push_back({"digest_mismatches_count",
               static_cast<int64_t>(replica() != nullptr ? replica()->digest_mismatches() : 0),
               MetricType::kCounter});
  // zkd's own: how many of the leader's tree digests this learner compared.
  add("digests_compared", replica() != nullptr ? replica()->digests_compared() : 0);
  // Apache's snapshottime summary (ms), and our own txns_per_fsync (group
  // commit: how many txns one fsync made durable).
  add("snapshottime", summary_figures(sources_.snapshots.times()));
  add("txns_per_fsync", sources_.stats.metrics.sync_processor_batch_size.average());
  append_metrics(sources_.stats.metrics, v);
  return v;
}

std::string StatusView::four_letter_word(std::string_view word, std::string_view argument) {
  if (word == "ruok") return "imok";
  // Apache: "null" while no server runs (in election, outside read-only mode).
  if (word == "isro") return serving() ? "rw" : read_only() ? "ro" : "null";
  if (!serving() && !read_only() && word != "envi" && word != "gtmk" && word != "stmk") {
    return "This ZooKeeper instance is not currently serving requests\n";
  }
  if (word == "srvr") return format_srvr(summary());
  if (word == "stat") return format_stat(summary(), connection_snapshots());
  if (word == "cons") return format_cons(connection_snapshots());
  if (word == "gtmk") return std::to_string(sources_.stats.trace_mask);
  if (word == "stmk") {
    zk::wire::Reader r(argument);
    int64_t mask = r.int64();
    if (r.ok()) sources_.stats.trace_mask = mask;
    return std::to_string(sources_.stats.trace_mask);
  }
  if (word == "crst") {
    reset_connection_stats();
    return "Connection stats reset.\n";
  }
  if (word == "srst") {
    reset_server_stats();
    return "Server stats reset.\n";
  }
  if (word == "dirs") {
    auto d = dirs();
    return format_dirs(d.data_dir_size, d.log_dir_size);
  }
  if (word == "conf") return format_conf(conf());
  if (word == "ydld") return yield_leadership();
  if (is_keeper_word(word) && sources_.keeper_word) return sources_.keeper_word(word);
  if (word == "envi") return format_envi(environment());
  if (word == "wchs") {
    auto w = watch_counts();
    return format_wchs(w.connections, w.paths, w.total);
  }
  if (word == "wchc") return format_wchc(watches_by_session());
  if (word == "wchp") return format_wchp(watches_by_path());
  if (word == "dump") return format_dump(dump());
  if (word == "mntr") return format_mntr(monitor_texts(monitor()));
  if (word == "hash") return format_hash(digests());
  return not_whitelisted_message(word);
}

}  // namespace zkd::server
