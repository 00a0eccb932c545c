// SPDX-License-Identifier: Apache-2.0
#include "zkbench/flood_report.h"

#include <cmath>
#include <cstdio>

#include "libzk/json/json_writer.h"
#include "zkbench/report.h"

namespace zk::bench::flood {

namespace {

constexpr std::array<OpType, 2> kMeasured = {OpType::kGet, OpType::kSet};

std::string kinds_text(const std::vector<Kind>& kinds) {
  std::string out;
  for (Kind k : kinds) out += (out.empty() ? "" : ",") + std::string(kind_name(k));
  return out;
}

std::string phase_table(const char* name, const PhaseFigures& p) {
  std::string out = std::string(name) + " (" +
                    format_double("%.1f", static_cast<double>(p.measured.count()) / 1e9) +
                    " s):\n" + latency_table_header("op", "requests", "req/s");
  for (OpType op : kMeasured) {
    const OpFigures& f = p.figures.of(op);
    out += latency_table_row(std::string(op_name(op)), f, per_second(f.requests(), p.measured));
  }
  if (p.unsent > 0) {
    out += "unsent: " + std::to_string(p.unsent) +
           " requests of the schedule (not sent by the phase's end plus its grace)\n";
  }
  return out;
}

void json_phase(json::JsonWriter& j, const char* name, const PhaseFigures& p) {
  j.key(name).begin_object();
  j.key("measured_us").number(p.measured.count() / 1000).key("unsent").number(p.unsent);
  j.key("ops").begin_object();
  for (OpType op : kMeasured) {
    const OpFigures& f = p.figures.of(op);
    j.key(op_name(op)).begin_object();
    j.key("requests").number(f.requests()).key("ok").number(f.ok);
    j.key("errors").number(f.error_count());
    json_errors_by_code(j, f.errors);
    json_latency(j, f.latency);
    j.end_object();
  }
  j.end_object().end_object();
}

}  // namespace

std::optional<double> p99_ratio(const FloodReport& r, OpType op) {
  const Histogram& before = r.unloaded.figures.of(op).latency;
  const Histogram& during = r.flood.figures.of(op).latency;
  if (before.count() == 0 || during.count() == 0 || before.percentile(0.99) <= 0) {
    return std::nullopt;
  }
  return static_cast<double>(during.percentile(0.99)) /
         static_cast<double>(before.percentile(0.99));
}

std::string flood_text(const FloodReport& r) {
  const FloodConfig& c = r.config;
  std::string out = "zkbench flood: measuring session on " + c.servers + ", flood from " +
                    (c.flood_source.empty() ? std::string("the default source") : c.flood_source) +
                    "\n";
  out += "capacity: " + format_double("%.0f", r.capacity) + " ops/s" +
         (r.capacity_measured ? " (measured)" : " (given)") + "; flood offers " +
         format_double("%.0f", r.offered_per_s) + " requests/s = " + format_double("%g", c.factor) +
         " x capacity, kinds " + kinds_text(c.kinds) + "\n\n";
  out += phase_table("unloaded", r.unloaded) + "\n" + phase_table("flood", r.flood) + "\n";
  out += "p99 flood/unloaded:";
  for (OpType op : kMeasured) {
    const auto ratio = p99_ratio(r, op);
    out += " " + std::string(op_name(op)) + " " +
           (ratio ? format_double("%.2f", *ratio) : std::string("n/a"));
  }
  out += "\nsession events:";
  if (r.events.empty()) out += " none";
  for (const SessionEvent& e : r.events) {
    out += " " + (e.phase.empty() ? std::string("setup") : e.phase) + " +" +
           format_double("%.3f", static_cast<double>(e.at.count()) / 1000) + "s " + e.state + ";";
  }
  char line[256];
  std::snprintf(line, sizeof line, "\n\n%-9s %10s %10s %9s %9s %9s %7s %7s %8s %7s %7s\n", "flood",
                "offered/s", "answered/s", "offered", "sent", "answered", "errors", "conns",
                "sessions", "refused", "closed");
  out += line;
  for (Kind k : c.kinds) {
    const KindCounts& n = r.result.counts[static_cast<size_t>(k)];
    std::snprintf(line, sizeof line,
                  "%-9s %10.0f %10.0f %9lld %9lld %9lld %7lld %7lld %8lld %7lld %7lld\n",
                  std::string(kind_name(k)).c_str(), per_second(n.offered, r.result.elapsed),
                  per_second(n.answered, r.result.elapsed), static_cast<long long>(n.offered),
                  static_cast<long long>(n.sent), static_cast<long long>(n.answered),
                  static_cast<long long>(n.errors), static_cast<long long>(n.connections),
                  static_cast<long long>(n.sessions), static_cast<long long>(n.refused),
                  static_cast<long long>(n.closed));
    out += line;
  }
  return out;
}

std::string flood_json(const FloodReport& r) {
  const FloodConfig& c = r.config;
  json::JsonWriter j;
  j.begin_object().key("format").number(kJsonFormat).key("command").string("flood");
  j.key("config").begin_object().key("servers").string(c.servers);
  j.key("factor").real(c.factor);
  j.key("kinds").begin_array();
  for (Kind k : c.kinds) j.string(kind_name(k));
  j.end_array();
  j.key("measure_rate").real(c.measure_rate).key("phase_seconds").real(c.phase_seconds);
  j.key("flood_source").string(c.flood_source).key("large_bytes").number(c.large_bytes);
  j.key("root").string(c.root).end_object();
  j.key("capacity").begin_object().key("ops_per_s").number(std::llround(r.capacity));
  j.key("measured").boolean(r.capacity_measured).key("errors").number(r.capacity_errors);
  j.end_object();
  j.key("offered_per_s").number(std::llround(r.offered_per_s));
  j.key("phases").begin_object();
  json_phase(j, "unloaded", r.unloaded);
  json_phase(j, "flood", r.flood);
  j.end_object();
  j.key("p99_ratio").begin_object();
  for (OpType op : kMeasured) {
    j.key(op_name(op));
    if (const auto ratio = p99_ratio(r, op)) {
      j.real(*ratio);
    } else {
      j.null();
    }
  }
  j.end_object();
  j.key("session_events").begin_array();
  for (const SessionEvent& e : r.events) {
    j.begin_object().key("phase").string(e.phase).key("at_ms").number(e.at.count());
    j.key("state").string(e.state).end_object();
  }
  j.end_array();
  j.key("flood_seconds").real(std::chrono::duration<double>(r.result.elapsed).count());
  j.key("flood").begin_object();
  for (Kind k : c.kinds) {
    const KindCounts& n = r.result.counts[static_cast<size_t>(k)];
    j.key(kind_name(k)).begin_object();
    j.key("rate").real(r.rates[static_cast<size_t>(k)]);
    j.key("offered").number(n.offered).key("sent").number(n.sent);
    j.key("answered").number(n.answered).key("errors").number(n.errors);
    j.key("connections").number(n.connections).key("sessions").number(n.sessions);
    j.key("refused").number(n.refused).key("closed").number(n.closed);
    j.key("offered_per_s").number(std::llround(per_second(n.offered, r.result.elapsed)));
    j.key("answered_per_s").number(std::llround(per_second(n.answered, r.result.elapsed)));
    j.end_object();
  }
  j.end_object().end_object();
  return j.str() + "\n";
}

}  // namespace zk::bench::flood
