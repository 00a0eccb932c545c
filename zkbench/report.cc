// SPDX-License-Identifier: Apache-2.0
#include "zkbench/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "libzk/json/json_writer.h"

namespace zk::bench {

namespace {

using zk::wire::Error;

double seconds(std::chrono::nanoseconds d) { return static_cast<double>(d.count()) / 1e9; }

int64_t micros(int64_t ns) { return (ns + 500) / 1000; }

std::string ms(int64_t ns) { return format_double("%.3f", static_cast<double>(ns) / 1e6); }

std::string code_name(Error e) { return std::string(zk::wire::error_name(e)); }

struct Row {
  std::string name;
  const OpFigures* f;
};

std::vector<Row> rows(const EngineOptions& o, const RunResult& r, const OpFigures& total) {
  std::vector<Row> out;
  for (OpType op : listed_op_types(o.workload, r.figures)) {
    out.push_back({std::string(op_name(op)), &r.figures.of(op)});
  }
  out.push_back({"total", &total});
  return out;
}

}  // namespace

std::string format_double(const char* fmt, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, value);
  return buf;
}

double per_second(int64_t n, std::chrono::nanoseconds span) {
  const double s = seconds(span);
  return s > 0 ? static_cast<double>(n) / s : 0;
}

std::string latency_table_header(const char* name, const char* count, const char* rate) {
  char line[256];
  std::snprintf(line, sizeof line, "%-9s %10s %11s %8s %9s %9s %9s %9s %9s\n", name, count, rate,
                "errors", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms");
  return line;
}

std::string latency_table_row(const std::string& name, const OpFigures& f, double rate) {
  const Histogram& h = f.latency;
  char line[256];
  std::snprintf(line, sizeof line, "%-9s %10lld %11.1f %8lld %9s %9s %9s %9s %9s\n", name.c_str(),
                static_cast<long long>(f.requests()), rate, static_cast<long long>(f.error_count()),
                ms(h.percentile(0.5)).c_str(), ms(h.percentile(0.9)).c_str(),
                ms(h.percentile(0.99)).c_str(), ms(h.percentile(0.999)).c_str(),
                ms(h.max()).c_str());
  return line;
}

std::string errors_line(
    const std::vector<std::pair<std::string, const std::map<Error, int64_t>*>>& parts) {
  std::map<Error, int64_t> total;
  for (const auto& [name, errors] : parts) {
    for (const auto& [code, count] : *errors) total[code] += count;
  }
  std::string out = "errors:";
  if (total.empty()) out += " none";
  for (const auto& [code, count] : total) {
    out += " " + code_name(code) + " " + std::to_string(count) + " (";
    bool first = true;
    for (const auto& [name, errors] : parts) {
      const auto it = errors->find(code);
      if (it == errors->end()) continue;
      out += (first ? "" : ", ") + name + " " + std::to_string(it->second);
      first = false;
    }
    out += ")";
  }
  return out;
}

void json_errors_by_code(json::JsonWriter& j, const std::map<Error, int64_t>& errors) {
  j.key("errors_by_code").begin_object();
  for (const auto& [code, count] : errors) j.key(code_name(code)).number(count);
  j.end_object();
}

void json_latency(json::JsonWriter& j, const Histogram& h) {
  j.key("latency_us").begin_object();
  j.key("p50").number(micros(h.percentile(0.5))).key("p90").number(micros(h.percentile(0.9)));
  j.key("p99").number(micros(h.percentile(0.99)));
  j.key("p999").number(micros(h.percentile(0.999)));
  j.key("max").number(micros(h.max())).key("mean").number(std::llround(h.mean() / 1000));
  j.end_object();
}

std::string cpu_line(const CpuUsage& c) {
  return "zkbench cpu: " + format_double("%.2f", static_cast<double>(c.user.count()) / 1e6) +
         " s user + " + format_double("%.2f", static_cast<double>(c.system.count()) / 1e6) +
         " s system over " + format_double("%.2f", static_cast<double>(c.wall.count()) / 1e6) +
         " s = " + format_double("%.0f", c.percent_of_one_core()) + "% of one core (" +
         std::to_string(c.cores) + " cores)";
}

std::optional<std::string> cpu_warning(const CpuUsage& c, int threads) {
  const int busy = std::max(1, std::min(threads, c.cores));
  if (c.percent_of_one_core() < 80.0 * busy) return std::nullopt;
  return "warning: zkbench kept its " + std::to_string(busy) +
         " thread(s) busy: the client may be the bottleneck (try more --threads)";
}

void json_cpu(json::JsonWriter& j, const CpuUsage& c, int threads) {
  j.key("cpu").begin_object();
  j.key("user_us").number(c.user.count()).key("system_us").number(c.system.count());
  j.key("wall_us").number(c.wall.count()).key("cores").number(c.cores);
  j.key("threads").number(threads).end_object();
}

std::optional<double> server_us_per_op(const RunResult& r) {
  return r.server_cpu.us_per_op(r.figures.total().requests());
}

std::string server_cpu_line(const RunResult& r) {
  const ServerCpuUsage& s = r.server_cpu;
  if (!s.cpu) return "server cpu: unknown (" + s.unknown + ")";
  std::string pids;
  for (pid_t pid : s.pids) pids += (pids.empty() ? "" : ",") + std::to_string(pid);
  const double cpu_s = static_cast<double>(s.cpu->count()) / 1e6;
  const double wall_s = static_cast<double>(r.cpu.wall.count()) / 1e6;
  std::string out = "server cpu: " + format_double("%.2f", cpu_s) + " s user+system of " +
                    std::to_string(s.pids.size()) + " process(es) (" + pids + ") over " +
                    format_double("%.2f", wall_s) + " s";
  if (wall_s > 0) out += " = " + format_double("%.0f", 100 * cpu_s / wall_s) + "% of one core";
  const auto per_op = server_us_per_op(r);
  return out + "; " + (per_op ? format_double("%.1f", *per_op) + " us per request" : "no request");
}

void json_server_cpu(json::JsonWriter& j, const RunResult& r) {
  const ServerCpuUsage& s = r.server_cpu;
  j.key("server_cpu").begin_object().key("pids").begin_array();
  for (pid_t pid : s.pids) j.number(pid);
  j.end_array().key("cpu_us");
  s.cpu ? j.number(s.cpu->count()) : j.null();
  j.key("ns_per_op");
  const auto per_op = server_us_per_op(r);
  per_op ? j.number(std::llround(*per_op * 1000)) : j.null();
  j.key("unknown");
  s.cpu ? j.null() : j.string(s.unknown);
  j.end_object();
}

void json_workload_fields(json::JsonWriter& j, const EngineOptions& o) {
  const Workload& w = o.workload;
  j.key("sessions").number(o.pool.sessions).key("in_flight").number(o.in_flight);
  j.key("threads").number(o.pool.threads).key("znodes").number(w.keys.znodes);
  j.key("keys").string(distribution_name(w.keys.distribution));
  j.key("value_bytes").number(w.value_bytes);
  j.key("seed").number(static_cast<int64_t>(w.seed));
  j.key("warmup_ms").number(o.warmup.count());
  j.key("duration_ms");
  o.ops > 0 ? j.null() : j.number(o.duration.count());
  j.key("ops");
  o.ops > 0 ? j.number(o.ops) : j.null();
  j.key("rate").number(std::llround(o.rate));
}

double ops_per_second(int64_t requests, const RunResult& r) {
  return per_second(requests, r.measured);
}

std::vector<OpType> listed_op_types(const Workload& workload, const Figures& figures) {
  std::vector<OpType> out;
  const bool creates = workload.mix.weights[static_cast<size_t>(OpType::kCreate)] > 0;
  for (OpType op : kAllOpTypes) {
    if (workload.mix.weights[static_cast<size_t>(op)] > 0 || (op == OpType::kDelete && creates) ||
        figures.of(op).requests() > 0) {
      out.push_back(op);
    }
  }
  return out;
}

std::string text_report(const EngineOptions& o, const RunResult& r) {
  const OpFigures total = r.figures.total();
  const Workload& w = o.workload;
  std::string out = "zkbench run: " + std::to_string(o.pool.sessions) + " sessions over " +
                    std::to_string(o.pool.addresses.size()) + " server(s), " +
                    std::to_string(o.in_flight) + " in flight each, ";
  out +=
      o.rate > 0 ? "open loop at " + format_double("%.0f", o.rate) + " requests/s" : "closed loop";
  out += "; " + std::to_string(o.pool.threads) + " io thread(s)\n";
  out += "workload: " + w.mix.describe() + "; " + std::to_string(w.keys.znodes) + " znodes, " +
         std::string(distribution_name(w.keys.distribution));
  if (w.keys.distribution == KeyDistribution::kZipf)
    out += format_double(" (s %.2f)", w.keys.zipf_s);
  out +=
      "; " + std::to_string(w.value_bytes) + "-byte values; seed " + std::to_string(w.seed) + "\n";
  out += "measured: " + format_double("%.3f", seconds(r.measured)) + " s";
  if (o.ops > 0) out += " (" + std::to_string(o.ops) + " requests asked)";
  out += ", after " + format_double("%.3f", seconds(o.warmup)) + " s of warm-up (" +
         std::to_string(r.warmup_requests) + " warm-up requests, not counted)\n\n";

  out += latency_table_header("op", "requests", "ops/s");
  for (const Row& row : rows(o, r, total)) {
    out += latency_table_row(row.name, *row.f, ops_per_second(row.f->requests(), r));
  }
  std::vector<std::pair<std::string, const std::map<Error, int64_t>*>> error_parts;
  for (OpType op : kAllOpTypes) error_parts.emplace_back(op_name(op), &r.figures.of(op).errors);
  out += "\n" + errors_line(error_parts) + "\n";
  for (const std::string& e : r.ended) out += "ended: " + e + "\n";
  if (!r.drained) out += "warning: answers still missing at the stop deadline (not counted)\n";
  out += cpu_line(r.cpu) + "\n";
  if (const auto warning = cpu_warning(r.cpu, o.pool.threads)) out += *warning + "\n";
  return out + server_cpu_line(r) + "\n";
}

std::string json_report(const EngineOptions& o, const RunResult& r) {
  const OpFigures total = r.figures.total();
  const Workload& w = o.workload;
  json::JsonWriter j;
  j.begin_object().key("format").number(kJsonFormat);
  j.key("config").begin_object();
  j.key("servers").begin_array();
  for (const std::string& a : o.pool.addresses) j.string(a);
  j.end_array();
  j.key("mix").string(w.mix.describe());
  json_workload_fields(j, o);
  j.end_object();
  j.key("measured_us").number(r.measured.count() / 1000);
  j.key("warmup_requests").number(r.warmup_requests);
  j.key("requests").number(total.requests()).key("ok").number(total.ok);
  j.key("errors").number(total.error_count());
  j.key("ops_per_s").number(std::llround(ops_per_second(total.requests(), r)));
  json_errors_by_code(j, total.errors);
  j.key("ops").begin_object();
  for (OpType op : listed_op_types(w, r.figures)) {
    const OpFigures& f = r.figures.of(op);
    j.key(op_name(op)).begin_object();
    j.key("requests").number(f.requests()).key("ok").number(f.ok);
    j.key("errors").number(f.error_count());
    j.key("ops_per_s").number(std::llround(ops_per_second(f.requests(), r)));
    json_errors_by_code(j, f.errors);
    json_latency(j, f.latency);
    j.end_object();
  }
  j.end_object();
  json_cpu(j, r.cpu, o.pool.threads);
  json_server_cpu(j, r);
  j.key("ended").begin_array();
  for (const std::string& e : r.ended) j.string(e);
  j.end_array();
  j.key("drained").boolean(r.drained).end_object();
  return j.str() + "\n";
}

std::string csv_report(const EngineOptions& o, const RunResult& r) {
  const OpFigures total = r.figures.total();
  std::string out =
      "op,requests,ok,errors,ops_per_s,p50_us,p90_us,p99_us,p999_us,max_us,"
      "errors_by_code,server_cpu_us,server_cpu_ns_per_op\n";
  for (const Row& row : rows(o, r, total)) {
    const OpFigures& f = *row.f;
    const Histogram& h = f.latency;
    std::string codes;
    for (const auto& [code, count] : f.errors) {
      codes += (codes.empty() ? "" : ";") + code_name(code) + ":" + std::to_string(count);
    }
    out += row.name + "," + std::to_string(f.requests()) + "," + std::to_string(f.ok) + "," +
           std::to_string(f.error_count()) + "," +
           format_double("%.1f", ops_per_second(f.requests(), r));
    for (double q : {0.5, 0.9, 0.99, 0.999}) out += "," + std::to_string(micros(h.percentile(q)));
    out += "," + std::to_string(micros(h.max())) + "," + codes + ",";
    // The servers' CPU is the whole run's: on the total row only.
    const auto per_op = server_us_per_op(r);
    if (&f == &total && per_op) {
      out += std::to_string(r.server_cpu.cpu->count()) + "," +
             std::to_string(std::llround(*per_op * 1000));
    } else {
      out += ",";
    }
    out += "\n";
  }
  return out;
}

}  // namespace zk::bench
