// SPDX-License-Identifier: Apache-2.0
#include "zkd/view/four_letter_format.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace zkd::server {

std::string java_double(double value) {
  double rounded = std::round(value * 10000.0) / 10000.0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", rounded);
  std::string s = buf;
  // Keep at least one digit after the point, as Double.toString does.
  while (s.size() > 2 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
  return s;
}

std::string java_hex(int64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx",
                static_cast<unsigned long long>(static_cast<uint64_t>(value)));
  return buf;
}

std::string java_date(int64_t epoch_ms) {
  std::time_t secs = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %d %H:%M:%S UTC %Y", &utc);
  return buf;
}

std::string format_connection(const ConnectionSnapshot& c, bool brief) {
  std::string s = " " + c.remote + "[";
  s += c.interest_ops == 0 ? std::string("0") : java_hex(c.interest_ops);
  s += "](queued=" + std::to_string(c.queued) + ",recved=" + std::to_string(c.received) +
       ",sent=" + std::to_string(c.sent);
  if (!brief && c.session_id != 0) {
    s += ",sid=0x" + java_hex(c.session_id);
    s += ",lop=" + c.last_operation;
    if (c.established_ms != 0) s += ",est=" + std::to_string(c.established_ms);
    if (c.timeout_ms != 0) s += ",to=" + std::to_string(c.timeout_ms);
    if (c.last_cxid >= 0) s += ",lcxid=0x" + java_hex(c.last_cxid);
    s += ",lzxid=0x" + java_hex(c.last_zxid);
    s += ",lresp=" + std::to_string(c.last_response_ms);
    s += ",llat=" + std::to_string(c.latency.last());
    s += ",minlat=" + std::to_string(c.latency.min());
    s += ",avglat=" + std::to_string(c.latency.integer_average());
    s += ",maxlat=" + std::to_string(c.latency.max());
  }
  s += ")";
  return s;
}

namespace {

std::string version_line(const ServerSummary& s) {
  return "Zookeeper version: " + s.version + "\n";
}

std::string stats_lines(const ServerSummary& s) {
  std::string out;
  out += "Latency min/avg/max: " + std::to_string(s.latency.min()) + "/" +
         java_double(s.latency.average()) + "/" + std::to_string(s.latency.max()) + "\n";
  out += "Received: " + std::to_string(s.packets_received) + "\n";
  out += "Sent: " + std::to_string(s.packets_sent) + "\n";
  out += "Connections: " + std::to_string(s.connections) + "\n";
  out += "Outstanding: " + std::to_string(s.outstanding) + "\n";
  out += "Zxid: 0x" + java_hex(s.last_zxid) + "\n";
  out += "Mode: " + s.mode + "\n";
  out += "Node count: " + std::to_string(s.node_count) + "\n";
  return out;
}

}  // namespace

std::string format_srvr(const ServerSummary& s) { return version_line(s) + stats_lines(s); }

std::string format_stat(const ServerSummary& s, const std::vector<ConnectionSnapshot>& clients) {
  std::string out = version_line(s);
  out += "Clients:\n";
  for (const auto& c : clients) out += format_connection(c, true) + "\n";
  out += "\n";
  out += stats_lines(s);
  return out;
}

std::string format_cons(const std::vector<ConnectionSnapshot>& clients) {
  std::string out;
  for (const auto& c : clients) out += format_connection(c, false) + "\n";
  out += "\n";
  return out;
}

std::string format_mntr(const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  for (const auto& [key, value] : values) out += "zk_" + key + "\t" + value + "\n";
  return out;
}

SummaryFigures summary_figures(const Summary& s, bool advanced) {
  SummaryFigures f{.count = s.count(),
                   .sum = s.sum(),
                   .min = s.min(),
                   .max = s.max(),
                   .average = s.average(),
                   .advanced = advanced};
  f.has_quantiles = true;
  f.p50 = s.quantile(0.5);
  f.p90 = s.quantile(0.9);
  f.p95 = s.quantile(0.95);
  f.p99 = s.quantile(0.99);
  f.p999 = s.quantile(0.999);
  return f;
}

SummaryFigures summary_figures(const LatencyStats& s) {
  return {
      .count = s.count(), .sum = s.total(), .min = s.min(), .max = s.max(), .average = s.average()};
}

std::vector<std::pair<std::string, MonitorScalar>> monitor_fields(
    const std::vector<MonitorEntry>& entries) {
  std::vector<std::pair<std::string, MonitorScalar>> out;
  for (const auto& entry : entries) {
    const std::string name = entry.label.empty() ? entry.key : entry.label + "_" + entry.key;
    if (const auto* i = std::get_if<int64_t>(&entry.value)) {
      out.emplace_back(name, *i);
    } else if (const auto* d = std::get_if<double>(&entry.value)) {
      out.emplace_back(name, *d);
    } else if (const auto* text = std::get_if<std::string>(&entry.value)) {
      out.emplace_back(name, *text);
    } else {
      const auto& f = std::get<SummaryFigures>(entry.value);
      out.emplace_back("avg_" + name, f.average);
      out.emplace_back("min_" + name, f.min);
      out.emplace_back("max_" + name, f.max);
      out.emplace_back("cnt_" + name, f.count);
      out.emplace_back("sum_" + name, f.sum);
      if (f.advanced) {
        out.emplace_back("p50_" + name, f.p50);
        out.emplace_back("p95_" + name, f.p95);
        out.emplace_back("p99_" + name, f.p99);
        out.emplace_back("p999_" + name, f.p999);
      }
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> monitor_texts(
    const std::vector<MonitorEntry>& entries) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [name, value] : monitor_fields(entries)) {
    if (const auto* i = std::get_if<int64_t>(&value)) {
      out.emplace_back(std::move(name), std::to_string(*i));
    } else if (const auto* d = std::get_if<double>(&value)) {
      out.emplace_back(std::move(name), java_double(*d));
    } else {
      out.emplace_back(std::move(name), std::get<std::string>(value));
    }
  }
  return out;
}

std::string format_conf(const ConfSnapshot& c) {
  std::string out;
  out += "clientPort=" + std::to_string(c.client_port) + "\n";
  out += "secureClientPort=-1\n";
  out += "dataDir=" + c.data_dir + "/version-2\n";
  out += "dataDirSize=" + std::to_string(c.data_dir_size) + "\n";
  out += "dataLogDir=" + c.data_log_dir + "/version-2\n";
  out += "dataLogSize=" + std::to_string(c.data_log_size) + "\n";
  out += "tickTime=" + std::to_string(c.tick_time_ms) + "\n";
  out += "maxClientCnxns=" + std::to_string(c.max_client_cnxns) + "\n";
  out += "minSessionTimeout=" + std::to_string(c.min_session_timeout_ms) + "\n";
  out += "maxSessionTimeout=" + std::to_string(c.max_session_timeout_ms) + "\n";
  out += "clientPortListenBacklog=" + std::to_string(c.client_port_listen_backlog) + "\n";
  out += "serverId=" + std::to_string(c.server_id) + "\n";
  if (c.quorum) {
    const auto& q = *c.quorum;
    out += "initLimit=" + std::to_string(q.init_limit) + "\n";
    out += "syncLimit=" + std::to_string(q.sync_limit) + "\n";
    out += "electionAlg=3\n";
    out += "electionPort=" + std::to_string(q.election_port) + "\n";
    out += "quorumPort=" + std::to_string(q.quorum_port) + "\n";
    out += std::string("peerType=") + (q.observer ? "1" : "0") + "\n";
    out += "membership: \n" + q.membership;
  }
  return out;
}

std::string format_envi(const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out = "Environment:\n";
  for (const auto& [key, value] : values) out += key + "=" + value + "\n";
  return out;
}

std::string format_hash(const std::vector<std::pair<int64_t, int64_t>>& digests) {
  std::string out;
  char zxid[17];
  for (const auto& [z, digest] : digests) {
    std::snprintf(zxid, sizeof zxid, "%llx", static_cast<unsigned long long>(z));
    out += std::string(zxid) + ": " + std::to_string(digest) + "\n";
  }
  return out;
}

std::string format_dirs(int64_t data_dir_size, int64_t log_dir_size) {
  return "datadir_size: " + std::to_string(data_dir_size) +
         "\nlogdir_size: " + std::to_string(log_dir_size) + "\n";
}

std::string format_dump(const DumpSnapshot& d) {
  std::string out = "SessionTracker dump:\n";
  out += "Session Sets (" + std::to_string(d.session_buckets.size()) + ")/(" +
         std::to_string(d.session_count) + "):\n";
  for (const auto& b : d.session_buckets) {
    out += std::to_string(b.sessions.size()) + " expire at " + java_date(b.expire_at_ms) + ":\n";
    for (int64_t sid : b.sessions) out += "\t0x" + java_hex(sid) + "\n";
  }
  out += "ephemeral nodes dump:\n";
  out += "Sessions with Ephemerals (" + std::to_string(d.ephemerals.size()) + "):\n";
  for (const auto& [sid, paths] : d.ephemerals) {
    out += "0x" + java_hex(sid) + ":\n";
    for (const auto& p : paths) out += "\t" + p + "\n";
  }
  out += "Connections dump:\n";
  out += "Connections Sets (" + std::to_string(d.connection_buckets.size()) + ")/(" +
         std::to_string(d.connection_count) + "):\n";
  for (const auto& b : d.connection_buckets) {
    out += std::to_string(b.connections.size()) + " expire at " + java_date(b.expire_at_ms) + ":\n";
    for (const auto& c : b.connections) out += "\t" + format_connection(c, false) + "\n";
  }
  return out;
}

std::string format_wchs(int64_t connections, int64_t paths, int64_t total_watches) {
  return std::to_string(connections) + " connections watching " + std::to_string(paths) +
         " paths\nTotal watches:" + std::to_string(total_watches) + "\n";
}

std::string format_wchc(const std::vector<std::pair<int64_t, std::vector<std::string>>>& watches) {
  std::string out;
  for (const auto& [sid, paths] : watches) {
    out += "0x" + java_hex(sid) + "\n";
    for (const auto& p : paths) out += "\t" + p + "\n";
  }
  out += "\n";
  return out;
}

std::string format_wchp(const std::vector<std::pair<std::string, std::vector<int64_t>>>& watches) {
  std::string out;
  for (const auto& [path, sids] : watches) {
    out += path + "\n";
    for (int64_t sid : sids) out += "\t0x" + java_hex(sid) + "\n";
  }
  out += "\n";
  return out;
}

}  // namespace zkd::server
