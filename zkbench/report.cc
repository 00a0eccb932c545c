#include "zkbench/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "zkctl/json_writer.h"

namespace zk::bench {

namespace {

using zk::wire::Error;

double seconds(std::chrono::nanoseconds d) { return static_cast<double>(d.count()) / 1e9; }

int64_t micros(int64_t ns) { return (ns + 500) / 1000; }

std::string format(const char* fmt, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, value);
  return buf;
}

std::string ms(int64_t ns) { return format("%.3f", static_cast<double>(ns) / 1e6); }

std::string code_name(Error e) { return std::string(zk::wire::error_name(e)); }

// Threads zkbench can keep busy at most: its io threads, or the machine's cores.
int busy_limit(const EngineOptions& o, const RunResult& r) {
  return std::max(1, std::min(o.pool.threads, r.cpu.cores));
}

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

void json_workload_fields(zkctl::JsonWriter& j, const EngineOptions& o) {
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
  const double s = seconds(r.measured);
  return s > 0 ? static_cast<double>(requests) / s : 0;
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
  out += o.rate > 0 ? "open loop at " + format("%.0f", o.rate) + " requests/s" : "closed loop";
  out += "; " + std::to_string(o.pool.threads) + " io thread(s)\n";
  out += "workload: " + w.mix.describe() + "; " + std::to_string(w.keys.znodes) + " znodes, " +
         std::string(distribution_name(w.keys.distribution));
  if (w.keys.distribution == KeyDistribution::kZipf) out += format(" (s %.2f)", w.keys.zipf_s);
  out +=
      "; " + std::to_string(w.value_bytes) + "-byte values; seed " + std::to_string(w.seed) + "\n";
  out += "measured: " + format("%.3f", seconds(r.measured)) + " s";
  if (o.ops > 0) out += " (" + std::to_string(o.ops) + " requests asked)";
  out += ", after " + format("%.3f", seconds(o.warmup)) + " s of warm-up (" +
         std::to_string(r.warmup_requests) + " warm-up requests, not counted)\n\n";

  char line[256];
  std::snprintf(line, sizeof line, "%-9s %10s %11s %8s %9s %9s %9s %9s %9s\n", "op", "requests",
                "ops/s", "errors", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms");
  out += line;
  for (const Row& row : rows(o, r, total)) {
    const Histogram& h = row.f->latency;
    std::snprintf(line, sizeof line, "%-9s %10lld %11.1f %8lld %9s %9s %9s %9s %9s\n",
                  row.name.c_str(), static_cast<long long>(row.f->requests()),
                  ops_per_second(row.f->requests(), r),
                  static_cast<long long>(row.f->error_count()), ms(h.percentile(0.5)).c_str(),
                  ms(h.percentile(0.9)).c_str(), ms(h.percentile(0.99)).c_str(),
                  ms(h.percentile(0.999)).c_str(), ms(h.max()).c_str());
    out += line;
  }
  out += "\nerrors:";
  if (total.errors.empty()) out += " none";
  for (const auto& [code, count] : total.errors) {
    out += " " + code_name(code) + " " + std::to_string(count) + " (";
    bool first = true;
    for (OpType op : kAllOpTypes) {
      const auto& errors = r.figures.of(op).errors;
      const auto it = errors.find(code);
      if (it == errors.end()) continue;
      out += (first ? "" : ", ") + std::string(op_name(op)) + " " + std::to_string(it->second);
      first = false;
    }
    out += ")";
  }
  out += "\n";
  for (const std::string& e : r.ended) out += "ended: " + e + "\n";
  if (!r.drained) out += "warning: answers still missing at the stop deadline (not counted)\n";
  const CpuUsage& c = r.cpu;
  out += "zkbench cpu: " + format("%.2f", static_cast<double>(c.user.count()) / 1e6) +
         " s user + " + format("%.2f", static_cast<double>(c.system.count()) / 1e6) +
         " s system over " + format("%.2f", static_cast<double>(c.wall.count()) / 1e6) +
         " s = " + format("%.0f", c.percent_of_one_core()) + "% of one core (" +
         std::to_string(c.cores) + " cores)\n";
  if (c.percent_of_one_core() >= 80.0 * busy_limit(o, r)) {
    out += "warning: zkbench kept its " + std::to_string(busy_limit(o, r)) +
           " thread(s) busy: the client may be the bottleneck (try more --threads)\n";
  }
  return out;
}

std::string json_report(const EngineOptions& o, const RunResult& r) {
  const OpFigures total = r.figures.total();
  const Workload& w = o.workload;
  zkctl::JsonWriter j;
  const auto errors_by_code = [&j](const OpFigures& f) {
    j.key("errors_by_code").begin_object();
    for (const auto& [code, count] : f.errors) j.key(code_name(code)).number(count);
    j.end_object();
  };
  j.begin_object().key("config").begin_object();
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
  errors_by_code(total);
  j.key("ops").begin_object();
  for (OpType op : listed_op_types(w, r.figures)) {
    const OpFigures& f = r.figures.of(op);
    const Histogram& h = f.latency;
    j.key(op_name(op)).begin_object();
    j.key("requests").number(f.requests()).key("ok").number(f.ok);
    j.key("errors").number(f.error_count());
    j.key("ops_per_s").number(std::llround(ops_per_second(f.requests(), r)));
    errors_by_code(f);
    j.key("latency_us").begin_object();
    j.key("p50").number(micros(h.percentile(0.5))).key("p90").number(micros(h.percentile(0.9)));
    j.key("p99").number(micros(h.percentile(0.99)));
    j.key("p999").number(micros(h.percentile(0.999)));
    j.key("max").number(micros(h.max())).key("mean").number(std::llround(h.mean() / 1000));
    j.end_object().end_object();
  }
  j.end_object();
  j.key("cpu").begin_object();
  j.key("user_us").number(r.cpu.user.count()).key("system_us").number(r.cpu.system.count());
  j.key("wall_us").number(r.cpu.wall.count()).key("cores").number(r.cpu.cores);
  j.key("threads").number(o.pool.threads).end_object();
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
      "errors_by_code\n";
  for (const Row& row : rows(o, r, total)) {
    const OpFigures& f = *row.f;
    const Histogram& h = f.latency;
    std::string codes;
    for (const auto& [code, count] : f.errors) {
      codes += (codes.empty() ? "" : ";") + code_name(code) + ":" + std::to_string(count);
    }
    out += row.name + "," + std::to_string(f.requests()) + "," + std::to_string(f.ok) + "," +
           std::to_string(f.error_count()) + "," + format("%.1f", ops_per_second(f.requests(), r));
    for (double q : {0.5, 0.9, 0.99, 0.999}) out += "," + std::to_string(micros(h.percentile(q)));
    out += "," + std::to_string(micros(h.max())) + "," + codes + "\n";
  }
  return out;
}

}  // namespace zk::bench
