// SPDX-License-Identifier: Apache-2.0
#include "zkbench/series_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "libzk/json/json_writer.h"
#include "zkbench/report.h"

namespace zk::bench {

namespace {

using Latency = std::optional<double>;  // ns; nothing without a successful request

// The latency percentiles a sweep or compare row shows, in column order.
struct Percentile {
  double fraction;
  const char* name;  // "p50": in column titles, JSON keys and CSV headers
};
constexpr std::array<Percentile, 3> kPercentiles{{{0.5, "p50"}, {0.9, "p90"}, {0.99, "p99"}}};
constexpr size_t kShown = kPercentiles.size();
// Per op type (by index), per entry of kPercentiles.
template <typename T>
using PerOp = std::array<std::array<T, kShown>, kOpTypes>;

constexpr const char* kServerCpuNote =
    "server cpu s: CPU time (user+system) of the server processes, all summed; server us/op: "
    "the same per request\n";

// What a row shows of one run (or the medians of several).
struct Summary {
  double ops_per_s = 0;
  double requests = 0, ok = 0, errors = 0;
  PerOp<Latency> latency{};
  // The servers' CPU (server_cpu.h); nothing when unknown.
  std::optional<double> server_cpu_us, server_us_per_op;
};

Summary summarize(const RunResult& r) {
  Summary s;
  const OpFigures total = r.figures.total();
  s.requests = static_cast<double>(total.requests());
  s.ok = static_cast<double>(total.ok);
  s.errors = static_cast<double>(total.error_count());
  s.ops_per_s = ops_per_second(total.requests(), r);
  if (r.server_cpu.cpu) s.server_cpu_us = static_cast<double>(r.server_cpu.cpu->count());
  s.server_us_per_op = server_us_per_op(r);
  for (OpType op : kAllOpTypes) {
    const OpFigures& f = r.figures.of(op);
    if (f.ok == 0) continue;
    for (size_t k = 0; k < kShown; ++k) {
      s.latency[static_cast<size_t>(op)][k] =
          static_cast<double>(f.latency.percentile(kPercentiles[k].fraction));
    }
  }
  return s;
}

std::optional<double> ratio(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *b == 0) return std::nullopt;
  return *a / *b;
}

// A/B of every figure a ratio row shows (nothing where B is 0 or missing).
struct Ratios {
  std::optional<double> ops_per_s;
  std::optional<double> server_per_op;  // server CPU per request
  PerOp<std::optional<double>> latency{};
};

Ratios ratios(const Summary& a, const Summary& b) {
  Ratios r;
  r.ops_per_s = ratio(a.ops_per_s, b.ops_per_s);
  r.server_per_op = ratio(a.server_us_per_op, b.server_us_per_op);
  for (size_t i = 0; i < kOpTypes; ++i) {
    for (size_t k = 0; k < kShown; ++k) r.latency[i][k] = ratio(a.latency[i][k], b.latency[i][k]);
  }
  return r;
}

// The median of the present values.
template <typename T, typename Get>
std::optional<double> median_of(const std::vector<T>& rows, Get get) {
  std::vector<double> values;
  for (const T& row : rows) {
    if (const std::optional<double> v = get(row)) values.push_back(*v);
  }
  return median(std::move(values));
}

Summary median_summary(const std::vector<Summary>& rows) {
  Summary m;
  m.ops_per_s =
      median_of(rows, [](const Summary& s) { return std::optional(s.ops_per_s); }).value_or(0);
  m.requests =
      median_of(rows, [](const Summary& s) { return std::optional(s.requests); }).value_or(0);
  m.ok = median_of(rows, [](const Summary& s) { return std::optional(s.ok); }).value_or(0);
  m.errors = median_of(rows, [](const Summary& s) { return std::optional(s.errors); }).value_or(0);
  m.server_cpu_us = median_of(rows, [](const Summary& s) { return s.server_cpu_us; });
  m.server_us_per_op = median_of(rows, [](const Summary& s) { return s.server_us_per_op; });
  for (size_t i = 0; i < kOpTypes; ++i) {
    for (size_t k = 0; k < kShown; ++k) {
      m.latency[i][k] = median_of(rows, [i, k](const Summary& s) { return s.latency[i][k]; });
    }
  }
  return m;
}

Ratios median_ratios(const std::vector<Ratios>& rows) {
  Ratios m;
  m.ops_per_s = median_of(rows, [](const Ratios& r) { return r.ops_per_s; });
  m.server_per_op = median_of(rows, [](const Ratios& r) { return r.server_per_op; });
  for (size_t i = 0; i < kOpTypes; ++i) {
    for (size_t k = 0; k < kShown; ++k) {
      m.latency[i][k] = median_of(rows, [i, k](const Ratios& r) { return r.latency[i][k]; });
    }
  }
  return m;
}

std::string ms_or_dash(Latency ns) { return ns ? format_double("%.3f", *ns / 1e6) : "-"; }
std::string ratio_or_dash(std::optional<double> r) { return r ? format_double("%.2f", *r) : "-"; }
std::string us_or_dash(std::optional<double> us) { return us ? format_double("%.1f", *us) : "-"; }
std::string s_or_dash(std::optional<double> us) {
  return us ? format_double("%.2f", *us / 1e6) : "-";
}

std::string cell(const std::string& text, int width) {
  std::string out = text.size() < static_cast<size_t>(width)
                        ? std::string(static_cast<size_t>(width) - text.size(), ' ') + text
                        : text;
  return " " + out;
}

// The column titles "get p50 ms", "get p90 ms", ... of `op`, `width` wide each.
std::string latency_titles(OpType op, int width) {
  std::string out;
  for (const Percentile& p : kPercentiles) {
    out += cell(std::string(op_name(op)) + " " + p.name + " ms", width);
  }
  return out;
}

void json_us(json::JsonWriter& j, const std::string& key, Latency ns) {
  j.key(key);
  ns ? j.number(std::llround(*ns / 1000)) : j.null();
}

void json_x1000(json::JsonWriter& j, const std::string& key, std::optional<double> r) {
  j.key(key);
  r ? j.number(std::llround(*r * 1000)) : j.null();
}

// "p50_us", "p90_us", ... of `op` (null without a successful request).
void json_latencies_us(json::JsonWriter& j, const Summary& s, OpType op) {
  for (size_t k = 0; k < kShown; ++k) {
    json_us(j, std::string(kPercentiles[k].name) + "_us", s.latency[static_cast<size_t>(op)][k]);
  }
}

// server_cpu_us and server_cpu_ns_per_op (null when unknown).
void json_server_cpu(json::JsonWriter& j, const Summary& s) {
  j.key("server_cpu_us");
  s.server_cpu_us ? j.number(std::llround(*s.server_cpu_us)) : j.null();
  json_x1000(j, "server_cpu_ns_per_op", s.server_us_per_op);
}

// The first reason one of `runs` gives for not knowing the servers' CPU;
// empty when every run knows it.
template <typename Runs, typename Get>
std::string first_unknown(const Runs& runs, Get get) {
  for (const auto& run : runs) {
    const RunResult& r = get(run);
    if (!r.server_cpu.cpu) return r.server_cpu.unknown;
  }
  return "";
}

void json_servers(json::JsonWriter& j, const EngineOptions& o) {
  j.key("servers").begin_array();
  for (const std::string& a : o.pool.addresses) j.string(a);
  j.end_array();
}

std::string describe(const EngineOptions& o) {
  const Workload& w = o.workload;
  std::string out = std::to_string(o.pool.sessions) + " sessions, " + std::to_string(o.in_flight) +
                    " in flight each, ";
  out +=
      o.rate > 0 ? "open loop at " + format_double("%.0f", o.rate) + " requests/s" : "closed loop";
  out += "; " + std::to_string(w.keys.znodes) + " znodes, " +
         std::string(distribution_name(w.keys.distribution)) + ", " +
         std::to_string(w.value_bytes) + "-byte values, seed " + std::to_string(w.seed) + "; ";
  out += o.ops > 0 ? std::to_string(o.ops) + " requests"
                   : format_double("%.1f", static_cast<double>(o.duration.count()) / 1000) + " s";
  out += " measured after " + format_double("%.1f", static_cast<double>(o.warmup.count()) / 1000) +
         " s of warm-up";
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

// Left-justified in `width` columns.
std::string left(const std::string& text, size_t width) {
  return text.size() < width ? text + std::string(width - text.size(), ' ') : text;
}

// The op types of a compare's columns: those listed for any run.
std::vector<OpType> compare_op_types(const Workload& w, const std::vector<CompareRound>& rounds) {
  std::vector<OpType> out;
  const auto add = [&out](const std::vector<OpType>& types) {
    for (OpType op : types) {
      if (std::find(out.begin(), out.end(), op) == out.end()) out.push_back(op);
    }
  };
  add(listed_op_types(w, Figures{}));
  for (const CompareRound& r : rounds) {
    add(listed_op_types(w, r.a.figures));
    add(listed_op_types(w, r.b.figures));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string sweep_text(const EngineOptions& o, const std::vector<SweepStep>& steps) {
  std::string out = "zkbench sweep: " + join(o.pool.addresses) + "\n";
  out += "workload: get=R,set=100-R; " + describe(o) + " per step\n";
  out += kServerCpuNote;
  const std::string unknown =
      first_unknown(steps, [](const SweepStep& s) -> const RunResult& { return s.result; });
  if (!unknown.empty()) out += "server cpu unknown: " + unknown + "\n";
  out += "\n";
  out += std::string("reads %") + cell("requests", 10) + cell("ops/s", 11) + cell("errors", 8);
  for (OpType op : {OpType::kGet, OpType::kSet}) out += latency_titles(op, 11);
  out += cell("server cpu s", 13) + cell("server us/op", 13) + "\n";
  for (const SweepStep& step : steps) {
    const Summary s = summarize(step.result);
    out += cell(std::to_string(step.reads), 6) + cell(format_double("%.0f", s.requests), 10) +
           cell(format_double("%.1f", s.ops_per_s), 11) + cell(format_double("%.0f", s.errors), 8);
    for (OpType op : {OpType::kGet, OpType::kSet}) {
      for (Latency ns : s.latency[static_cast<size_t>(op)]) out += cell(ms_or_dash(ns), 11);
    }
    out += cell(s_or_dash(s.server_cpu_us), 13) + cell(us_or_dash(s.server_us_per_op), 13) + "\n";
  }
  return out;
}

std::string sweep_json(const EngineOptions& o, const std::vector<SweepStep>& steps) {
  json::JsonWriter j;
  j.begin_object().key("format").number(kJsonFormat);
  j.key("config").begin_object();
  json_servers(j, o);
  json_workload_fields(j, o);
  j.end_object().key("steps").begin_array();
  for (const SweepStep& step : steps) {
    const Summary s = summarize(step.result);
    const OpFigures total = step.result.figures.total();
    j.begin_object().key("reads").number(step.reads);
    j.key("requests").number(total.requests()).key("ok").number(total.ok);
    j.key("errors").number(total.error_count());
    j.key("ops_per_s").number(std::llround(s.ops_per_s));
    j.key("measured_us").number(step.result.measured.count() / 1000);
    json_server_cpu(j, s);
    for (OpType op : {OpType::kGet, OpType::kSet}) {
      const OpFigures& f = step.result.figures.of(op);
      j.key(op_name(op)).begin_object();
      j.key("requests").number(f.requests()).key("ok").number(f.ok);
      json_latencies_us(j, s, op);
      j.end_object();
    }
    j.end_object();
  }
  j.end_array().end_object();
  return j.str() + "\n";
}

std::string sweep_csv(const std::vector<SweepStep>& steps) {
  std::string out = "reads,requests,ok,errors,ops_per_s";
  for (OpType op : {OpType::kGet, OpType::kSet}) {
    out += "," + std::string(op_name(op)) + "_requests";
    for (const Percentile& p : kPercentiles)
      out += "," + std::string(op_name(op)) + "_" + p.name + "_us";
  }
  out += ",server_cpu_us,server_cpu_ns_per_op\n";
  const auto us = [](Latency ns) { return ns ? std::to_string(std::llround(*ns / 1000)) : ""; };
  for (const SweepStep& step : steps) {
    const Summary s = summarize(step.result);
    const OpFigures total = step.result.figures.total();
    out += std::to_string(step.reads) + "," + std::to_string(total.requests()) + "," +
           std::to_string(total.ok) + "," + std::to_string(total.error_count()) + "," +
           format_double("%.1f", s.ops_per_s);
    for (OpType op : {OpType::kGet, OpType::kSet}) {
      out += "," + std::to_string(step.result.figures.of(op).requests());
      for (Latency ns : s.latency[static_cast<size_t>(op)]) out += "," + us(ns);
    }
    const auto rounded = [](std::optional<double> v) {
      return v ? std::to_string(std::llround(*v)) : "";
    };
    out += "," + rounded(s.server_cpu_us) + "," +
           rounded(s.server_us_per_op ? std::optional(*s.server_us_per_op * 1000) : std::nullopt) +
           "\n";
  }
  return out;
}

std::string compare_text(const CompareSide& a, const CompareSide& b,
                         const std::vector<CompareRound>& rounds) {
  const EngineOptions& o = a.options;
  const auto types = compare_op_types(o.workload, rounds);
  std::string out = "zkbench compare: a = " + a.name + " (" + join(a.options.pool.addresses) +
                    "), b = " + b.name + " (" + join(b.options.pool.addresses) + ")\n";
  out += "workload: " + o.workload.mix.describe() + "; " + describe(o) + "; " +
         std::to_string(rounds.size()) + " round(s), a then b in each\n";
  out += "a/b rows: " + a.name + " / " + b.name +
         " (ops/s above 1, latencies and server us/op below 1 favour " + a.name +
         "); medians over rounds\n";
  out += kServerCpuNote;
  for (const CompareSide* side : {&a, &b}) {
    const std::string unknown = first_unknown(
        rounds, [&](const CompareRound& r) -> const RunResult& { return side == &a ? r.a : r.b; });
    if (!unknown.empty()) out += "server cpu of " + side->name + " unknown: " + unknown + "\n";
  }
  out += "\n";
  const size_t side_width = std::max({a.name.size(), b.name.size(), size_t{4}});
  const auto name_cell = [side_width](const std::string& round, const std::string& side) {
    return left(round, 7) + left(side, side_width);
  };
  out += name_cell("round", "side") + cell("ops/s", 11) + cell("errors", 8) +
         cell("server cpu s", 13) + cell("server us/op", 13);
  for (OpType op : types) out += latency_titles(op, 14);
  out += "\n";
  const auto side_row = [&](const std::string& round, const std::string& name, const Summary& s) {
    std::string row = name_cell(round, name) + cell(format_double("%.1f", s.ops_per_s), 11) +
                      cell(format_double("%.0f", s.errors), 8) +
                      cell(s_or_dash(s.server_cpu_us), 13) +
                      cell(us_or_dash(s.server_us_per_op), 13);
    for (OpType op : types) {
      for (Latency ns : s.latency[static_cast<size_t>(op)]) row += cell(ms_or_dash(ns), 14);
    }
    return row + "\n";
  };
  const auto ratio_row = [&](const std::string& round, const Ratios& r) {
    std::string row = name_cell(round, "a/b") + cell(ratio_or_dash(r.ops_per_s), 11) + cell("", 8) +
                      cell("", 13) + cell(ratio_or_dash(r.server_per_op), 13);
    for (OpType op : types) {
      for (std::optional<double> x : r.latency[static_cast<size_t>(op)]) {
        row += cell(ratio_or_dash(x), 14);
      }
    }
    return row + "\n";
  };
  std::vector<Summary> as, bs;
  std::vector<Ratios> rs;
  for (size_t i = 0; i < rounds.size(); ++i) {
    as.push_back(summarize(rounds[i].a));
    bs.push_back(summarize(rounds[i].b));
    rs.push_back(ratios(as.back(), bs.back()));
    const std::string round = std::to_string(i + 1);
    out += side_row(round, a.name, as.back()) + side_row(round, b.name, bs.back()) +
           ratio_row(round, rs.back());
  }
  out += side_row("median", a.name, median_summary(as)) +
         side_row("median", b.name, median_summary(bs)) + ratio_row("median", median_ratios(rs));
  return out;
}

std::string compare_json(const CompareSide& a, const CompareSide& b,
                         const std::vector<CompareRound>& rounds) {
  const EngineOptions& o = a.options;
  const auto types = compare_op_types(o.workload, rounds);
  json::JsonWriter j;
  j.begin_object().key("format").number(kJsonFormat);
  j.key("config").begin_object();
  json_workload_fields(j, o);
  j.key("mix").string(o.workload.mix.describe());
  j.end_object();
  for (const CompareSide* side : {&a, &b}) {
    j.key(side == &a ? "a" : "b").begin_object().key("name").string(side->name);
    json_servers(j, side->options);
    j.end_object();
  }
  j.key("ratio").string("a/b");
  const auto summary = [&](const char* key, const Summary& s) {
    j.key(key).begin_object();
    j.key("ops_per_s").number(std::llround(s.ops_per_s));
    j.key("requests").number(std::llround(s.requests)).key("errors").number(std::llround(s.errors));
    json_server_cpu(j, s);
    j.key("ops").begin_object();
    for (OpType op : types) {
      j.key(op_name(op)).begin_object();
      json_latencies_us(j, s, op);
      j.end_object();
    }
    j.end_object().end_object();
  };
  const auto ratio_object = [&](const Ratios& r) {
    j.key("a_over_b_x1000").begin_object();
    json_x1000(j, "ops_per_s", r.ops_per_s);
    json_x1000(j, "server_cpu_per_op", r.server_per_op);
    j.key("ops").begin_object();
    for (OpType op : types) {
      j.key(op_name(op)).begin_object();
      for (size_t k = 0; k < kShown; ++k) {
        json_x1000(j, kPercentiles[k].name, r.latency[static_cast<size_t>(op)][k]);
      }
      j.end_object();
    }
    j.end_object().end_object();
  };
  std::vector<Summary> as, bs;
  std::vector<Ratios> rs;
  j.key("rounds").begin_array();
  for (size_t i = 0; i < rounds.size(); ++i) {
    as.push_back(summarize(rounds[i].a));
    bs.push_back(summarize(rounds[i].b));
    rs.push_back(ratios(as.back(), bs.back()));
    j.begin_object().key("round").number(static_cast<int64_t>(i + 1));
    summary("a", as.back());
    summary("b", bs.back());
    ratio_object(rs.back());
    j.end_object();
  }
  j.end_array().key("median").begin_object();
  summary("a", median_summary(as));
  summary("b", median_summary(bs));
  ratio_object(median_ratios(rs));
  j.end_object().end_object();
  return j.str() + "\n";
}

}  // namespace zk::bench
