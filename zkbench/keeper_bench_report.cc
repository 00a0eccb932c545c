// SPDX-License-Identifier: Apache-2.0
#include "zkbench/keeper_bench_report.h"

#include "libzk/json/json_writer.h"
#include "zkbench/report.h"
#include "zkbench/scenario_report.h"

namespace zk::bench::keeper {

namespace {

// keeper-bench's percentiles, in its order.
constexpr double kPercents[] = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.9, 99.99};

// The reads or the writes of a run, added up.
struct ClassFigures {
  int64_t answered = 0;
  int64_t errors = 0;
  int64_t bytes = 0;
  Histogram latency;  // ns
};

ClassFigures class_figures(const RunResult& r, bool reads) {
  ClassFigures c;
  for (size_t k = 0; k < kStatKinds; ++k) {
    if (is_read(static_cast<StatKind>(k)) != reads) continue;
    const KindFigures& f = r.kinds[k];
    c.answered += f.figures.ok;
    c.errors += f.figures.error_count();
    c.bytes += f.bytes;
    c.latency.merge(f.figures.latency);
  }
  return c;
}

void write_results(json::JsonWriter& w, const ClassFigures& c, std::chrono::nanoseconds measured) {
  w.begin_object().key("total_requests").number(c.answered);
  w.key("requests_per_second").real(per_second(c.answered, measured));
  w.key("bytes_per_second").real(per_second(c.bytes, measured));
  w.key("percentiles").begin_array();
  for (double p : kPercents) {
    const double ms = static_cast<double>(c.latency.percentile(p / 100)) / 1e6;
    w.begin_object().key(format_double("%.2f", p)).real(ms).end_object();
  }
  w.end_array().end_object();
}

std::string mib_per_s(int64_t bytes, std::chrono::nanoseconds span) {
  return format_double("%.2f", per_second(bytes, span) / 1048576);
}

std::string class_note(const char* name, const ClassFigures& c, std::chrono::nanoseconds span) {
  return std::string(name) + ": " + std::to_string(c.answered) + " answered, " +
         format_double("%.1f", per_second(c.answered, span)) + " requests/s, " +
         mib_per_s(c.bytes, span) + " MiB/s, p50 " +
         format_double("%.3f", static_cast<double>(c.latency.percentile(0.5)) / 1e6) + " ms, p99 " +
         format_double("%.3f", static_cast<double>(c.latency.percentile(0.99)) / 1e6) + " ms";
}

std::string server_cpu_note(const RunResult& r, int64_t requests) {
  const ServerCpuUsage& s = r.server_cpu;
  if (!s.cpu) return "server cpu: unknown (" + s.unknown + ")";
  std::string pids;
  for (pid_t pid : s.pids) pids += (pids.empty() ? "" : ",") + std::to_string(pid);
  std::string out =
      "server cpu: " + format_double("%.2f", static_cast<double>(s.cpu->count()) / 1e6) +
      " s user+system of " + std::to_string(s.pids.size()) + " process(es) (" + pids + ")";
  const auto per_op = s.us_per_op(requests);
  return out + "; " + (per_op ? format_double("%.1f", *per_op) + " us per request" : "no request");
}

std::string seconds_text(double s) { return format_double("%g", s); }

}  // namespace

std::string keeper_json(const RunResult& r) {
  const ClassFigures reads = class_figures(r, true);
  const ClassFigures writes = class_figures(r, false);
  json::JsonWriter w;
  w.begin_object().key("timestamp").number(r.start_unix_ms);
  w.key("errors").number(reads.errors + writes.errors);
  w.key("ops").number(reads.answered + writes.answered);
  if (reads.answered > 0) write_results(w.key("read_results"), reads, r.measured);
  if (writes.answered > 0) write_results(w.key("write_results"), writes, r.measured);
  w.end_object();
  return w.str() + "\n";
}

ScenarioConfig scenario_config_of(const RunDescription& d) {
  ScenarioConfig c;
  c.command = "keeper-bench";
  c.servers = d.servers;
  c.threads = d.threads;
  const Config& k = d.config;
  c.settings = {{"config", d.config_path},
                {"sessions", d.sessions},
                {"concurrency", static_cast<int64_t>(k.concurrency)},
                {"pipeline_depth", static_cast<int64_t>(k.pipeline_depth)},
                {"iterations", static_cast<int64_t>(k.iterations)},
                {"timelimit_s", seconds_text(k.timelimit_s)},
                {"warmup_s", seconds_text(k.warmup_s)},
                {"continue_on_error", std::string(k.continue_on_error ? "yes" : "no")},
                {"seed", std::to_string(d.seed)}};
  return c;
}

ScenarioResult scenario_of(const RunDescription& d, const RunResult& r) {
  ScenarioResult s;
  s.unit = "requests";
  s.measured = r.measured;
  s.cpu = r.cpu;
  int64_t tolerated = 0;
  for (size_t k = 0; k < kStatKinds; ++k) {
    const KindFigures& f = r.kinds[k];
    s.done += f.figures.requests();
    tolerated += f.tolerated;
    if (f.figures.requests() > 0) {
      s.steps.push_back({std::string(stat_name(static_cast<StatKind>(k))), f.figures});
    }
  }
  const ClassFigures reads = class_figures(r, true);
  const ClassFigures writes = class_figures(r, false);
  s.counts = {{"reads", reads.answered},
              {"writes", writes.answered},
              {"errors", reads.errors + writes.errors},
              {"tolerated_nonode", tolerated},
              {"warmup_requests", r.warmup_requests},
              {"setup_znodes", static_cast<int64_t>(d.setup_znodes)}};
  s.notes = {class_note("read", reads, r.measured), class_note("write", writes, r.measured),
             server_cpu_note(r, reads.answered + writes.answered + reads.errors + writes.errors)};
  s.ended = r.ended;
  if (!r.stopped_by.empty()) {
    s.problems.push_back("the first error ended the run (continue_on_error is false): " +
                         r.stopped_by);
  }
  return s;
}

std::string keeper_text(const RunDescription& d, const RunResult& r) {
  return scenario_text(scenario_config_of(d), scenario_of(d, r));
}

std::string progress_line(const Progress& now, const Progress& before, double span_s) {
  const int64_t total = now.reads + now.writes;
  const int64_t last = total - before.reads - before.writes;
  std::string out = "keeper-bench: ";
  out += now.measuring
             ? format_double("%.1f", std::chrono::duration<double>(now.measured).count()) +
                   " s measured: "
             : std::string("warming up: ");
  out += std::to_string(total) + " requests (" + std::to_string(now.reads) + " reads, " +
         std::to_string(now.writes) + " writes), " +
         format_double("%.0f", span_s > 0 ? static_cast<double>(last) / span_s : 0) +
         " requests/s over the last " + format_double("%.1f", span_s) + " s, " +
         std::to_string(now.errors) + " errors";
  return out;
}

}  // namespace zk::bench::keeper
