// SPDX-License-Identifier: Apache-2.0
#include "zkbench/scenario_report.h"

#include <chrono>
#include <cmath>
#include <map>

#include "libzk/json/json_writer.h"
#include "zkbench/report.h"

namespace zk::bench {

namespace {

using zk::wire::Error;

// Every step added up.
OpFigures all_steps(const ScenarioResult& r) {
  OpFigures out;
  for (const ScenarioStep& s : r.steps) out.merge(s.figures);
  return out;
}

std::string setting_text(const std::variant<int64_t, std::string>& v) {
  return std::holds_alternative<int64_t>(v) ? std::to_string(std::get<int64_t>(v))
                                            : std::get<std::string>(v);
}

}  // namespace

std::string scenario_text(const ScenarioConfig& c, const ScenarioResult& r) {
  std::string out = "zkbench " + c.command + ": " + std::to_string(c.servers.size()) +
                    " server(s); " + std::to_string(c.threads) + " io thread(s)\n";
  out += "settings:";
  for (size_t i = 0; i < c.settings.size(); ++i) {
    out += (i == 0 ? " " : ", ") + c.settings[i].first + " " + setting_text(c.settings[i].second);
  }
  const double measured_s = std::chrono::duration<double>(r.measured).count();
  out += "\nmeasured: " + format_double("%.3f", measured_s) + " s; " + std::to_string(r.done) +
         " " + r.unit + " = " + format_double("%.1f", per_second(r.done, r.measured)) + " " +
         r.unit + "/s\n\n";
  out += latency_table_header("step", "count", "per s");
  for (const ScenarioStep& s : r.steps) {
    out += latency_table_row(s.name, s.figures, per_second(s.figures.requests(), r.measured));
  }
  out += "\n";
  if (!r.counts.empty()) {
    out += "counts:";
    for (size_t i = 0; i < r.counts.size(); ++i) {
      out += (i == 0 ? " " : ", ") + r.counts[i].first + " " + std::to_string(r.counts[i].second);
    }
    out += "\n";
  }
  for (const std::string& n : r.notes) out += n + "\n";
  std::vector<std::pair<std::string, const std::map<Error, int64_t>*>> error_parts;
  for (const ScenarioStep& s : r.steps) error_parts.emplace_back(s.name, &s.figures.errors);
  out += errors_line(error_parts) + "\n";
  for (const std::string& e : r.ended) out += "ended: " + e + "\n";
  for (const std::string& p : r.problems) out += "PROBLEM: " + p + "\n";
  out += cpu_line(r.cpu) + "\n";
  if (const auto warning = cpu_warning(r.cpu, c.threads)) out += *warning + "\n";
  return out;
}

std::string scenario_json(const ScenarioConfig& c, const ScenarioResult& r) {
  json::JsonWriter j;
  j.begin_object().key("format").number(kJsonFormat);
  j.key("command").string(c.command);
  j.key("config").begin_object().key("servers").begin_array();
  for (const std::string& s : c.servers) j.string(s);
  j.end_array().key("threads").number(c.threads);
  for (const auto& [name, value] : c.settings) {
    j.key(name);
    std::holds_alternative<int64_t>(value) ? j.number(std::get<int64_t>(value))
                                           : j.string(std::get<std::string>(value));
  }
  j.end_object();
  j.key("measured_us").number(r.measured.count() / 1000);
  j.key("unit").string(r.unit).key("done").number(r.done);
  j.key("per_s").number(std::llround(per_second(r.done, r.measured)));
  j.key("counts").begin_object();
  for (const auto& [name, n] : r.counts) j.key(name).number(n);
  j.end_object();
  j.key("steps").begin_object();
  for (const ScenarioStep& s : r.steps) {
    const OpFigures& f = s.figures;
    j.key(s.name).begin_object();
    j.key("requests").number(f.requests()).key("ok").number(f.ok);
    j.key("errors").number(f.error_count());
    j.key("per_s").number(std::llround(per_second(f.requests(), r.measured)));
    json_errors_by_code(j, f.errors);
    json_latency(j, f.latency);
    j.end_object();
  }
  j.end_object();
  const OpFigures all = all_steps(r);
  j.key("errors").number(all.error_count());
  json_errors_by_code(j, all.errors);
  json_cpu(j, r.cpu, c.threads);
  j.key("ended").begin_array();
  for (const std::string& e : r.ended) j.string(e);
  j.end_array();
  j.key("problems").begin_array();
  for (const std::string& p : r.problems) j.string(p);
  j.end_array().end_object();
  return j.str() + "\n";
}

}  // namespace zk::bench
